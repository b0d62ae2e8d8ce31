/* version — the one place libhew reports its version from. */
#include "hew.h"

#define HEW_STR2(x) #x
#define HEW_STR(x) HEW_STR2(x)

const char *hew_version(void)
{
    return HEW_STR(HEW_VERSION_MAJOR) "." HEW_STR(HEW_VERSION_MINOR) "." HEW_STR(HEW_VERSION_PATCH);
}
