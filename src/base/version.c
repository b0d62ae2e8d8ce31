/* version — the one place libhew reports its version from: the HEW_VERSION macros of the
 * hew.h it was built with, so that an embedder can compare them with the header it
 * compiled against. Never computes a version any other way. */
#include "hew.h"

const char *hew_version(void)
{
    return HEW_VERSION;
}

int hew_version_number(void)
{
    return HEW_VERSION_NUMBER;
}
