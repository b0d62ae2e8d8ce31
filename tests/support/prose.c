/* prose — filler text for benchmarks and tests (see prose.h). */
#include "prose.h"

#include <stdlib.h>
#include <string.h>

char *prose_make(size_t len, const char *const *words, size_t nwords)
{
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    size_t n = 0, w = 0;
    while (n < len && nwords) {
        const char *word = words[w++ % nwords];
        size_t k = strlen(word);
        if (n + k + 1 > len)
            break;
        memcpy(s + n, word, k);
        n += k;
        s[n++] = ' ';
    }
    while (n < len)
        s[n++] = 'x';
    s[len] = '\0';
    return s;
}
