/* fuzz_decode_gemini — libFuzzer target: arbitrary bytes as a gemini response body
 * through hew's decoder, whole and split; see fuzz_decode_common.h. Never does I/O. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_decode_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_decode_one(API_PROTO_GEMINI, data, size);
}
