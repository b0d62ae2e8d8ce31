/* hew_code.h — the error codes of libhew and the visibility macro of its public API.
 * Shared by hew.h, hew_debug.h and the library's own src/base/err.h, so that the codes
 * an embedder gets and the codes hew passes around inside are one enum. It must never
 * grow anything else: no types of the agent, no functions beyond naming a code.
 *
 * A code's number is part of the ABI: new codes are added at the end, never renumbered. */
#ifndef HEW_CODE_H
#define HEW_CODE_H

#ifdef __cplusplus
extern "C" {
#endif

/* HEW_API marks what libhew exports. The library is compiled with -fvisibility=hidden and
 * HEW_BUILDING_LIBRARY defined, so only what carries this mark is visible in libhew.so
 * (and left global in the installed libhew.a). */
#if defined(HEW_BUILDING_LIBRARY) && defined(__GNUC__)
#define HEW_API __attribute__((visibility("default")))
#else
#define HEW_API
#endif

typedef enum hew_code {
    HEW_OK = 0,
    HEW_E_NOMEM,     /* out of memory */
    HEW_E_INVALID,   /* bad argument or malformed input */
    HEW_E_IO,        /* file system or pipe failure */
    HEW_E_NOTFOUND,  /* file, key or item does not exist */
    HEW_E_TOOBIG,    /* a hard size cap was hit */
    HEW_E_ESCAPE,    /* a path leaves the workspace */
    HEW_E_NET,       /* connection failed or dropped */
    HEW_E_TIMEOUT,   /* connect, idle or overall deadline passed */
    HEW_E_ABORTED,   /* stopped on request */
    HEW_E_PROTOCOL,  /* the peer broke its wire format */
    HEW_E_HTTP,      /* the server answered with an error status */
    HEW_E_INTERNAL,  /* a bug in hew */
    HEW_E_BUSY,      /* held by another task or hew process (a running task): stop it first */
    HEW_E_STATE,     /* not now: the object is not in a state that allows the call (no ask
                        pending) */
    HEW_E_CORRUPT,   /* stored data is damaged (the task store fails its check) */
    HEW_E_STALE,     /* what the call was based on changed since (a trust report whose
                        files were edited): look again */
    HEW_E_UNSUPPORTED /* this machine cannot do it (no kernel feature or program for a
                         sandbox): install what the message names, or choose otherwise */
} hew_code;

/* The number of codes: every code is below it (for tables indexed by code). */
#define HEW_CODE_COUNT ((int)HEW_E_UNSUPPORTED + 1)

/* What code means, as a short English sentence fragment ("out of memory"); a static
 * string, never NULL ("unknown error code" for a value outside the enum). */
HEW_API const char *hew_strerror(hew_code code);

/* A stable lowercase name for a code ("timeout", "io"), as logs and JSON events
 * (docs/events.md) write it; a static string, "unknown" outside the enum. */
HEW_API const char *hew_code_name(hew_code code);

#ifdef __cplusplus
}
#endif

#endif
