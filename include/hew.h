/* hew.h — the public API of libhew, the library behind the `hew` coding agent.
 * Everything an embedding program (an editor, a tool, the hew CLI itself) may use is
 * declared here; nothing else in src/ is a stable interface. It starts small and grows
 * as the agent loop lands. */
#ifndef HEW_H
#define HEW_H

#ifdef __cplusplus
extern "C" {
#endif

#define HEW_VERSION_MAJOR 0
#define HEW_VERSION_MINOR 1
#define HEW_VERSION_PATCH 0

/* The library's version as "MAJOR.MINOR.PATCH"; a static string. */
const char *hew_version(void);

#ifdef __cplusplus
}
#endif

#endif
