/* api/turn with a long text (issue #17's memory goal): with a spill folder, the text held
 * in memory never reaches API_TURN_SPILL_AT however long the answer grows, the rest
 * waiting on disk; the history message it gives is the same with and without spilling —
 * the text in consecutive blocks of at most API_TURN_TEXT_PART bytes, each cut before a
 * character's first byte, which joined are the text exactly; a short text stays one
 * block; a folder where nothing can be written keeps the text in memory and loses
 * nothing; the debug view shows the whole text. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "api/turn.h"
#include "base/utf8.h"
#include "check.h"
#include "tmpdir.h"

/* About n bytes of text with 2-, 3- and 4-byte characters everywhere. */
static void long_text(buf *t, size_t n)
{
    for (unsigned i = 0; t->len < n; i++)
        buf_printf(t, "caf\xc3\xa9 %u \xe2\x80\x94 na\xc3\xafve \xf0\x9f\x98\x80 ", i);
}

/* Feed text in deltas of 3001 bytes (cut anywhere, inside characters too); max_in_memory
 * gets the most text ever held in memory. */
static json_t *feed(const buf *text, const char *spill_dir, size_t *max_in_memory,
                    json_t **debug)
{
    api_turn t;
    api_turn_init(&t);
    api_turn_spill_to(&t, spill_dir);
    *max_in_memory = 0;
    for (size_t off = 0; off < text->len; off += 3001) {
        size_t n = text->len - off < 3001 ? text->len - off : 3001;
        api_chunk c = { .kind = API_CHUNK_TEXT, .text = text->data + off, .len = n };
        api_turn_add(&t, &c);
        if (t.text.len > *max_in_memory)
            *max_in_memory = t.text.len;
    }
    CHECK_INT(api_turn_text_len(&t), text->len);
    json_t *msg = api_turn_to_message(&t);
    if (debug)
        *debug = api_turn_debug_json(&t);
    api_turn_release(&t);
    return msg;
}

/* The message's text blocks joined; checks each block's size and that it is UTF-8. */
static void joined(const json_t *msg, buf *out, size_t *blocks)
{
    *blocks = 0;
    size_t i;
    json_t *b;
    json_array_foreach(json_object_get(msg, "content"), i, b) {
        const json_t *tx = json_object_get(b, "text");
        CHECK_STR(json_string_value(json_object_get(b, "type")), "text");
        CHECK(json_string_length(tx) <= API_TURN_TEXT_PART);
        CHECK(utf8_validate(json_string_value(tx), json_string_length(tx), NULL));
        buf_append(out, json_string_value(tx), json_string_length(tx));
        (*blocks)++;
    }
}

static void test_long_text_spills_and_comes_back(void)
{
    char *dir = tmpdir_make("turn-spill");
    REQUIRE(dir);
    buf text = BUF_INIT(0);
    long_text(&text, (size_t)5500000);
    REQUIRE(!text.err);
    size_t most_spilled = 0, most_kept = 0;
    json_t *dbg = NULL;
    json_t *spilled = feed(&text, dir, &most_spilled, &dbg);
    json_t *kept = feed(&text, NULL, &most_kept, NULL);
    REQUIRE(spilled && kept);
    CHECK(most_spilled < API_TURN_SPILL_AT);
    CHECK_INT(most_kept, text.len);
    CHECK(json_equal(spilled, kept));
    buf back = BUF_INIT(0);
    size_t blocks = 0;
    joined(spilled, &back, &blocks);
    CHECK_INT(blocks, 6);
    CHECK(back.len == text.len && memcmp(back.data, text.data, text.len) == 0);
    const json_t *dt = json_object_get(dbg, "text");
    CHECK(json_string_length(dt) == text.len &&
          memcmp(json_string_value(dt), text.data, text.len) == 0);
    json_decref(dbg);
    /* a folder nothing can be written to: all of it stays in memory, nothing is lost */
    size_t most = 0;
    json_t *nowhere = feed(&text, "/nonexistent/hew-turn", &most, NULL);
    CHECK_INT(most, text.len);
    CHECK(json_equal(nowhere, kept));
    /* a short text is one block, spill folder or not */
    buf small = BUF_INIT(0);
    buf_puts(&small, "short caf\xc3\xa9");
    json_t *one = feed(&small, dir, &most, NULL);
    joined(one, &back, &blocks);
    CHECK_INT(blocks, 1);
    json_decref(one);
    json_decref(nowhere);
    json_decref(spilled);
    json_decref(kept);
    buf_release(&small);
    buf_release(&back);
    buf_release(&text);
    tmpdir_remove(dir);
    free(dir);
}

int main(void)
{
    RUN(test_long_text_spills_and_comes_back);
    return check_report();
}
