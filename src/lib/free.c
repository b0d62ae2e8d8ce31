/* free — hew_free, the one way an embedder releases what libhew allocated and handed out
 * (the strings of char ** out-parameters). It must stay the allocator's own free: every
 * such string comes from malloc inside libhew, and nothing else may be passed here. */
#include <stdlib.h>

#include "hew.h"

void hew_free(void *p)
{
    free(p);
}
