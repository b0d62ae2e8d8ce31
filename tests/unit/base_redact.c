/* Unit tests for base/redact: every secret shape it knows (true positives), ordinary text
 * it must leave alone (false positives: sentences, paths, git hashes, dashed words, short
 * values), known values (registered, and read from secret environment variables), the
 * names of secret variables, the in-place form that cuts at a character boundary, and
 * the header and key-hint helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/redact.h"
#include "check.h"

static void redacts_to(const char *in, const char *want, int line)
{
    buf b = BUF_INIT(0);
    redact_text(in, strlen(in), &b);
    check_count++;
    if (b.err || strcmp(b.data ? b.data : "", want) != 0)
        check_fail(__FILE__, line, "redact\n   in: %s\n  got: %s\n want: %s", in,
                   b.data ? b.data : "(null)", want);
    buf_release(&b);
}
#define REDACT(in, want) redacts_to(in, want, __LINE__)
#define KEEP(in) redacts_to(in, in, __LINE__)

static void test_redact_headers(void)
{
    REDACT("Authorization: Bearer sk-abc123", "Authorization: Bearer [REDACTED]");
    REDACT("> authorization: bearer sk-abc\r\n> accept: */*",
           "> authorization: bearer [REDACTED]\r\n> accept: */*");
    REDACT("AUTHORIZATION:Basic dXNlcjpwYXNz", "AUTHORIZATION:Basic [REDACTED]");
    REDACT("Authorization: sk-no-scheme", "Authorization: [REDACTED]");
    REDACT("Proxy-Authorization: Basic abc\nnext", "Proxy-Authorization: Basic [REDACTED]\nnext");
    REDACT("x-api-key: sk-ant-api03-xyz", "x-api-key: [REDACTED]");
    REDACT("X-Api-Key:sk-ant", "X-Api-Key:[REDACTED]");
    REDACT("x-goog-api-key: AIzaSyXYZ", "x-goog-api-key: [REDACTED]");
    REDACT("api-key: azure-key-1", "api-key: [REDACTED]");
    REDACT("Api-Key : k", "Api-Key : [REDACTED]");
    /* Inside a JSON string the value stops at the quote. */
    REDACT("{\"h\":\"Authorization: Bearer tok\",\"n\":1}",
           "{\"h\":\"Authorization: Bearer [REDACTED]\",\"n\":1}");
    REDACT("headers: [\"x-api-key: k1\\r\\n\"]", "headers: [\"x-api-key: [REDACTED]\\r\\n\"]");
    /* Two in a row. */
    REDACT("x-api-key: a\nAuthorization: Bearer b\n",
           "x-api-key: [REDACTED]\nAuthorization: Bearer [REDACTED]\n");
}

static void test_redact_urls(void)
{
    REDACT("GET https://g.example/v1/models?key=AIzaSy123&alt=sse",
           "GET https://g.example/v1/models?key=[REDACTED]&alt=sse");
    REDACT("/x?alt=sse&key=AIza#frag", "/x?alt=sse&key=[REDACTED]#frag");
    REDACT("?api_key=a1&apikey=b2&access_token=c3&token=d4&API_KEY=e5",
           "?api_key=[REDACTED]&apikey=[REDACTED]&access_token=[REDACTED]&token=[REDACTED]"
           "&API_KEY=[REDACTED]");
    REDACT("url \"https://h/p?token=abc\" done", "url \"https://h/p?token=[REDACTED]\" done");
    REDACT("https://user:hunter2@proxy.example:8080/path",
           "https://user:[REDACTED]@proxy.example:8080/path");
    REDACT("http://a:b@h http://c:d@h", "http://a:[REDACTED]@h http://c:[REDACTED]@h");
    REDACT("socks5://u:p%40ss@host", "socks5://u:[REDACTED]@host");
}

static void test_redact_json(void)
{
    REDACT("{\"api_key\": \"sk-1\", \"model\": \"m\"}",
           "{\"api_key\": \"[REDACTED]\", \"model\": \"m\"}");
    REDACT("{\"apiKey\":\"sk-2\"}", "{\"apiKey\":\"[REDACTED]\"}");
    REDACT("{\"authorization\": \"Bearer t0k\"}", "{\"authorization\": \"Bearer [REDACTED]\"}");
    REDACT("{\"Authorization\":\"t0k\"}", "{\"Authorization\":\"[REDACTED]\"}");
    REDACT("{\"x-api-key\":\"k\",\"x-goog-api-key\":\"g\"}",
           "{\"x-api-key\":\"[REDACTED]\",\"x-goog-api-key\":\"[REDACTED]\"}");
    REDACT("{\"access_token\":\"a\",\"refresh_token\":\"r\",\"client_secret\":\"c\","
           "\"password\":\"p\"}",
           "{\"access_token\":\"[REDACTED]\",\"refresh_token\":\"[REDACTED]\","
           "\"client_secret\":\"[REDACTED]\",\"password\":\"[REDACTED]\"}");
    /* Escapes inside the value are part of it. */
    REDACT("{\"api_key\":\"a\\\"b\\\\c\",\"x\":1}", "{\"api_key\":\"[REDACTED]\",\"x\":1}");
    /* JSON inside a JSON string. */
    REDACT("{\"body\":\"{\\\"api_key\\\":\\\"sk-3\\\"}\"}",
           "{\"body\":\"{\\\"api_key\\\":\\\"[REDACTED]\\\"}\"}");
    /* A line cut in the middle of the secret: the rest is masked. */
    REDACT("{\"api_key\":\"sk-cut-off", "{\"api_key\":\"[REDACTED]");
}

static void test_redact_leaves_the_rest(void)
{
    KEEP("");
    KEEP("plain text with no secrets, \xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80");
    KEEP("Content-Type: application/json\r\nAccept: text/event-stream");
    KEEP("?monkey=1&keyboard=2&tokens=3&max_tokens=4&keys=5");
    KEEP("https://example.com/v1/chat?stream=true&model=x");
    KEEP("ssh://git@github.com/org/repo.git");
    KEEP("https://github.com/org/repo");
    KEEP("mailto:user@example.com and user:pass without scheme@x");
    KEEP("{\"max_tokens\": 100, \"api_key_id\": \"id-1\", \"key\": \"k\", \"token\": \"t\"}");
    KEEP("{\"api_key\": null, \"authorization\": 42}");
    KEEP("{\"api_key\": \"\"}");
    KEEP("my-authorization: x");  /* not the header: part of a longer name */
    KEEP("x-api-keys: x");
    KEEP("authorization is required");
    KEEP("Authorization:");
    KEEP("key=value without a leading ? or &");
    KEEP("?key=");
    KEEP("trailing ?");
    KEEP("a:/b ://");
}

static void test_redact_header_helper(void)
{
    buf b = BUF_INIT(0);
    CHECK(redact_header_is_secret("Authorization"));
    CHECK(redact_header_is_secret("x-api-key"));
    CHECK(redact_header_is_secret("X-Goog-Api-Key"));
    CHECK(redact_header_is_secret("api-key"));
    CHECK(redact_header_is_secret("proxy-authorization"));
    CHECK(!redact_header_is_secret("Content-Type"));
    CHECK(!redact_header_is_secret("x-api-key-id"));
    CHECK(!redact_header_is_secret(NULL));
    redact_header("Authorization", "Bearer sk-1", &b);
    CHECK_STR(b.data, "Bearer [REDACTED]");
    buf_reset(&b);
    redact_header("authorization", "sk-1", &b);
    CHECK_STR(b.data, "[REDACTED]");
    buf_reset(&b);
    redact_header("x-api-key", "sk-ant-1", &b);
    CHECK_STR(b.data, "[REDACTED]");
    buf_reset(&b);
    redact_header("Content-Type", "application/json", &b);
    CHECK_STR(b.data, "application/json");
    buf_reset(&b);
    redact_header("anthropic-version", "2023-06-01", &b);
    CHECK_STR(b.data, "2023-06-01");
    buf_release(&b);
}

static void test_vendor_keys(void)
{
    /* OpenAI's 401 echoes the key it was sent: the whole key goes, its kind stays. */
    REDACT("Incorrect API key provided: sk-proj-abcDEF1234567890ghijKLMNopqrstuvWXyz. You "
           "can find your API key at https://platform.openai.com/account/api-keys.",
           "Incorrect API key provided: sk-proj-[REDACTED]. You can find your API key at "
           "https://platform.openai.com/account/api-keys.");
    /* ... and the form where OpenAI masks the middle. */
    REDACT("key provided: sk-proj-********************************************zX9w.",
           "key provided: sk-proj-[REDACTED].");
    REDACT("sk-ant-api03-AbCdEfGh1234567890_-xyzXYZ", "sk-ant-[REDACTED]");
    REDACT("(sk-or-v1-0123456789abcdef0123456789abcdef)", "(sk-or-[REDACTED])");
    REDACT("key=sk-1234567890abcdefghijklmnop", "key=[REDACTED]");
    REDACT("key sk-1234567890abcdefghijklmnop", "key sk-[REDACTED]");
    REDACT("\"AIzaSyA1234567890abcdefghijklmnopqrstu\"", "\"AIza[REDACTED]\"");
    REDACT("token ghp_abcdefghijklmnopqrstuvwxyz0123456789 here",
           "token ghp_[REDACTED] here");
    REDACT("gho_16C7e42F292c6912E7710c838347Ae178B4a and ghs_16C7e42F292c6912E7710c838347Ae",
           "gho_[REDACTED] and ghs_[REDACTED]");
    REDACT("github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
           "github_pat_[REDACTED]");
    REDACT("xai-abcdefghij0123456789ABCDEFGHIJ", "xai-[REDACTED]");
    REDACT("gsk_abcdefghij0123456789ABCDEFGHIJ", "gsk_[REDACTED]");
    REDACT("id AKIAIOSFODNN7EXAMPLE, session ASIAY34FZKBOKMUTVV7A.",
           "id AKIA[REDACTED], session ASIA[REDACTED].");
    REDACT("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ok",
           "[REDACTED] ok");
    REDACT("got Bearer abcDEF0123456789xyzUVW= back", "got Bearer [REDACTED] back");
    REDACT("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
           "AWS_SECRET_ACCESS_KEY=[REDACTED]");
    REDACT("export GITHUB_TOKEN='abcdef0123456789abcdef0123456789'",
           "export GITHUB_TOKEN='[REDACTED]'");
    REDACT("client_secret=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b",
           "client_secret=[REDACTED]");
    REDACT("db password=hunter2 host=x", "db password=[REDACTED] host=x");
    REDACT("PGPASSWORD=s3cr3t", "PGPASSWORD=[REDACTED]");
    REDACT("https://ghp_abcdefghijklmnopqrstuvwxyz0123456789:x-oauth-basic@github.com/o/r",
           "https://ghp_[REDACTED]:[REDACTED]@github.com/o/r");
}

static void test_no_false_positives(void)
{
    KEEP("The key to this task is a careful reading of src/api/error.c and tests/unit.");
    KEEP("commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it (see a3affbc).");
    KEEP("/home/user/projects/sk-learn-compatible-estimators/README.md");
    KEEP("use sk-learn-compatible-estimators here"); /* no digit: words, not a key */
    KEEP("task-sk-1234567890abcdefghijklmnop");       /* not at a token boundary */
    KEEP("Bearer of bad news, bearer tokens are described in RFC 6750.");
    KEEP("Authorization is required; a bearer 12345 is short.");
    KEEP("max_tokens=4096 temperature=0.2 sort_key=created_at_descending");
    KEEP("monkey=banana tokens=12 key=value");
    KEEP("TOKENIZERS_PARALLELISM=false PATH=/usr/bin:/bin HOME=/home/u");
    KEEP("AKIA is a prefix; AKIAIOSFODNN7EXAMPLEX is too long to be an id");
    KEEP("eyJ alone, eyJhbGciOi.notjwt");
    KEEP("password=");
    KEEP("A sentence with sk- in it and ghp_ too.");
    KEEP("\xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80 unicode stays");
}

static void test_known_values(void)
{
    /* From the environment: a secret variable's value, read on first use. */
    REDACT("failed with my-env-secret-value-42 in it", "failed with [REDACTED] in it");
    /* A value without a shape of its own is found once registered. */
    KEEP("the server said: plainpassphrase9 is wrong");
    redact_secret_add("plainpassphrase9");
    REDACT("the server said: plainpassphrase9 is wrong", "the server said: [REDACTED] is wrong");
    /* A registered key keeps its vendor prefix only. */
    redact_secret_add("sk-proj-registered");
    REDACT("x sk-proj-registered y", "x sk-proj-[REDACTED] y");
    /* Known values and shapes inside what a match keeps (a URL's user) go too; the
     * longest known value wins. */
    REDACT("https://plainpassphrase9:pw@h/x", "https://[REDACTED]:[REDACTED]@h/x");
    redact_secret_add("sk-proj-registered-and-longer");
    REDACT("x sk-proj-registered-and-longer y", "x sk-proj-[REDACTED] y");
    /* Short values are never registered: they would hide ordinary words. */
    redact_secret_add("true");
    redact_secret_add("1234567");
    KEEP("true 1234567");
    CHECK(redact_secret_known("plainpassphrase9"));
    CHECK(redact_secret_known("my-env-secret-value-42"));
    CHECK(!redact_secret_known("true"));
    CHECK(!redact_secret_known(NULL));
}

static void test_env_names(void)
{
    static const char *const secret[] = {
        "GITHUB_TOKEN", "GH_TOKEN", "NPM_TOKEN", "FOO_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
        "GEMINI_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN",
        "MY_SECRET", "CLIENT_SECRET_ID", "DB_PASSWORD", "PGPASSWORD", "LDAP_PASSWD",
        "SSH_PRIVATE_KEY", "STRIPE_KEY", "XAPIKEY", "x-auth-token", "OAUTHTOKEN", NULL,
    };
    static const char *const plain[] = {
        "PATH", "HOME", "TOKENIZERS_PARALLELISM", "MONKEY", "KEYTIMEOUT", "GITHUB_USER",
        "AWS_REGION", "SSH_AUTH_SOCK", "EDITOR", "LANG", "KEYBOARD", NULL,
    };
    for (size_t i = 0; secret[i]; i++)
        if (!redact_env_secret(secret[i], strlen(secret[i])))
            check_fail(__FILE__, __LINE__, "%s should be secret", secret[i]);
    for (size_t i = 0; plain[i]; i++)
        if (redact_env_secret(plain[i], strlen(plain[i])))
            check_fail(__FILE__, __LINE__, "%s should not be secret", plain[i]);
    check_count += 2;
    /* Only the name part counts when it comes from "NAME=value". */
    CHECK(redact_env_secret("GH_TOKEN=x", 8));
    CHECK(!redact_env_secret("GH_TOKEN=x", 2));
}

static void test_is_key(void)
{
    CHECK(redact_is_key("sk-proj-abcDEF1234567890ghijKLMN"));
    CHECK(redact_is_key("ghp_abcdefghijklmnopqrstuvwxyz0123456789"));
    CHECK(redact_is_key("plainpassphrase9")); /* registered above */
    CHECK(!redact_is_key("sk-proj-abcDEF1234567890ghijKLMN and more"));
    CHECK(!redact_is_key("/usr/bin"));
    CHECK(!redact_is_key(""));
    CHECK(!redact_is_key(NULL));
}

static void test_inplace_and_dup(void)
{
    char s[64] = "key: sk-ant-api03-AbCdEfGh1234567890_-xyzXYZ end";
    redact_inplace(s, sizeof s);
    CHECK_STR(s, "key: sk-ant-[REDACTED] end");
    /* The redacted text may be longer than the room: cut on a character boundary. */
    char t[24] = "x-api-key: k1\n\xC3\xA9\xC3\xA9";
    redact_inplace(t, sizeof t);
    CHECK_STR(t, "x-api-key: [REDACTED]\n");
    char u[20] = "no secret here";
    redact_inplace(u, sizeof u);
    CHECK_STR(u, "no secret here");
    char *d = redact_dup("Authorization: Bearer abc");
    CHECK_STR(d, "Authorization: Bearer [REDACTED]");
    free(d);
    CHECK(redact_dup(NULL) == NULL);
    CHECK(redact_found("a ghp_abcdefghijklmnopqrstuvwxyz0123456789", 41));
    CHECK(!redact_found("nothing", 7));
}

static void test_key_hint(void)
{
    char h[16];
    redact_key_hint("sk-ant-api03-long-key", h, sizeof h);
    CHECK_STR(h, "sk-***");
    redact_key_hint("short", h, sizeof h);
    CHECK_STR(h, "***");
    redact_key_hint(NULL, h, sizeof h);
    CHECK_STR(h, "***");
}

int main(void)
{
    setenv("SOME_SERVICE_TOKEN", "my-env-secret-value-42", 1);
    RUN(test_redact_headers);
    RUN(test_redact_urls);
    RUN(test_redact_json);
    RUN(test_redact_leaves_the_rest);
    RUN(test_redact_header_helper);
    RUN(test_vendor_keys);
    RUN(test_no_false_positives);
    RUN(test_known_values);
    RUN(test_env_names);
    RUN(test_is_key);
    RUN(test_inplace_and_dup);
    RUN(test_key_hint);
    return check_report();
}
