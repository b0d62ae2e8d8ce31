/* main — placeholder until the fake provider lands. */
#include <stdio.h>
int main(void)
{
    fputs("hew-fake-provider: not built yet\n", stderr);
    return 1;
}
