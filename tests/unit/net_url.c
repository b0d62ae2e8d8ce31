/* Tests for net/url: resolving a reference against a base the way libcurl reads it (the
 * MCP HTTP+SSE "endpoint" event), the same-origin check, the http(s) check, and the one
 * URL redactor with the cases of both of its callers (net/http's error messages, the MCP
 * transport's server name). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "net/url.h"

static void resolves(const char *base, const char *ref, const char *want)
{
    char *got = NULL;
    hew_err err = HEW_ERR_INIT;
    hew_code rc = url_resolve(base, ref, &got, &err);
    if (rc != HEW_OK || !got || strcmp(got, want) != 0)
        check_fail(__FILE__, __LINE__, "url_resolve(%s, %s) = %d %s (%s), want %s", base, ref,
                   (int)rc, got ? got : "(null)", err.msg, want);
    check_count++;
    free(got);
}

static void refused(const char *base, const char *ref)
{
    char *got = NULL;
    hew_err err = HEW_ERR_INIT;
    hew_code rc = url_resolve(base, ref, &got, &err);
    if (rc != HEW_E_INVALID || got || !err.msg[0])
        check_fail(__FILE__, __LINE__, "url_resolve(%s, %s) = %d %s, want HEW_E_INVALID", base,
                   ref, (int)rc, got ? got : "(null)");
    check_count++;
    free(got);
}

static void test_resolve(void)
{
    /* the cases the MCP transport had */
    resolves("http://h:1/sse", "/message?sessionId=ab", "http://h:1/message?sessionId=ab");
    resolves("http://h:1/a/b/sse", "message?x=1", "http://h:1/a/b/message?x=1");
    resolves("http://h:1/a/b/sse", "../rpc", "http://h:1/a/rpc");
    resolves("http://h:1/a/b/sse", "./rpc", "http://h:1/a/b/rpc");
    resolves("http://h:1/a/b/sse?k=1", "?s=2", "http://h:1/a/b/sse?s=2");
    resolves("http://h:1/sse", "https://other/x#frag", "https://other/x");
    resolves("https://h/sse", "//cdn.h/m", "https://cdn.h/m");
    resolves("http://h", "m", "http://h/m");
    resolves("http://h:1/sse", " /message \n", "http://h:1/message");
    resolves("http://h:1/a/sse", "/x/../../y/./z", "http://h:1/y/z");
    /* dot segments never climb above the root */
    resolves("https://good.example/a/mcp", "../../../x", "https://good.example/x");
    /* fragments: dropped; a fragment alone is the base itself */
    resolves("https://good.example/a/mcp", "#f", "https://good.example/a/mcp");
    resolves("https://good.example/a/mcp?k=1", "x#f", "https://good.example/a/x");
    /* IPv6 hosts */
    resolves("http://[::1]:8080/sse", "/m?s=1", "http://[::1]:8080/m?s=1");
    resolves("http://[::1]:8080/sse", "//[::2]/m", "http://[::2]/m");
    /* percent-encoding is kept as it was written */
    resolves("https://h/a/sse", "b%20c/%2e%2e/d", "https://h/a/b%20c/%2e%2e/d");
    /* user info of the base stays with its host; a ref's own is its own */
    resolves("https://u:p@h/sse", "/m", "https://u:p@h/m");
    resolves("https://h/sse", "https://h:80@evil/x", "https://h:80@evil/x");
    /* case of scheme and host as curl writes them */
    resolves("HTTPS://H.example/sse", "/m", "https://H.example/m");
    /* a scheme with one or three slashes is an absolute URL to curl */
    resolves("https://good.example/mcp", "https:/evil.com", "https://evil.com/");

    /* A scheme without slashes: the hand-written resolver made it the host evil.com; curl
     * does not take it as a URL at all (and WHATWG reads it as the path "evil.com" on the
     * base's host): never a request to evil.com. */
    refused("https://good.example/mcp", "https:evil.com");
    refused("https://good.example/mcp", "http:evil.com");
    refused("https://good.example/mcp", "https:\\\\evil.com");
    /* not http(s) */
    refused("http://h/sse", "javascript:alert(1)");
    refused("http://h/sse", "ftp://h/x");
    refused("http://h/sse", "file:///etc/passwd");
    refused("http://h/sse", "mailto:a@b");
    /* not a URL at all, or not one hew sends anything to */
    refused("http://h/sse", "");
    refused("http://h/sse", " \t\n");
    refused("http://h/sse", "/a b");
    refused("http://h/sse", "/a\x01");
    refused("http://h/sse", "https://h:99999/");
    /* a base that is not http(s) with a host */
    refused("file:///x", "/a");
    refused("https://", "/a");
    refused("not a url", "/a");

    char *got = (char *)"untouched";
    CHECK_INT(url_resolve("http://h/sse", "javascript:x", &got, NULL), HEW_E_INVALID);
    CHECK(got == NULL);
    /* the message shows the URLs redacted */
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(url_resolve("https://user:s3cr3t-key@h/sse?token=t0k3n", "https:evil.com?key=k3y",
                          &got, &err),
              HEW_E_INVALID);
    CHECK(strstr(err.msg, "s3cr3t") == NULL && strstr(err.msg, "t0k3n") == NULL &&
          strstr(err.msg, "k3y") == NULL);
    CHECK_INT(url_resolve("https://user:s3cr3t-key@h:99999/sse", "/x", &got, &err),
              HEW_E_INVALID);
    CHECK(strstr(err.msg, "s3cr3t") == NULL);
}

static void test_same_origin(void)
{
    CHECK(url_same_origin("http://H:80/a", "http://h/b?x"));
    CHECK(url_same_origin("https://u:p@h/a", "https://h:443/"));
    CHECK(url_same_origin("https://[::1]:8/a", "https://[::1]:8/b"));
    CHECK(url_same_origin("https://h%2eexample/", "https://h.example/x")); /* curl decodes */
    CHECK(!url_same_origin("http://h/a", "https://h/a"));
    CHECK(!url_same_origin("http://h:1/a", "http://h:2/a"));
    CHECK(!url_same_origin("http://h.evil/a", "http://h/a"));
    CHECK(!url_same_origin("https://[::1]/a", "https://[::2]/a"));
    CHECK(!url_same_origin("https://h:80@evil/", "https://h:80/"));
    CHECK(!url_same_origin("https://good.example/mcp", "https:evil.com"));
    CHECK(!url_same_origin("ftp://h/", "ftp://h/"));
    CHECK(!url_same_origin("http://h/", NULL));
    /* what url_resolve gives for a network-path leaves the origin */
    char *got = NULL;
    REQUIRE(url_resolve("https://good.example/mcp", "//evil.com/x", &got, NULL) == HEW_OK);
    CHECK(!url_same_origin(got, "https://good.example/mcp"));
    free(got);
}

static void test_check_http(void)
{
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(url_check_http("https://example.com/mcp", &err), HEW_OK);
    CHECK_INT(url_check_http("http://127.0.0.1:1/mcp", &err), HEW_OK);
    CHECK_INT(url_check_http("ftp://example.com/x", &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "ftp://example.com/x is not an http:// or https:// URL") != NULL);
    CHECK_INT(url_check_http("https://", &err), HEW_E_INVALID);
    CHECK_INT(url_check_http("https://h:99999/", &err), HEW_E_INVALID);
    CHECK_INT(url_check_http("https:evil.com", &err), HEW_E_INVALID);
    CHECK_INT(url_check_http("https://u:k3y@exa mple.com/", &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "k3y") == NULL);
    CHECK_INT(url_check_http(NULL, &err), HEW_E_INVALID);

    CHECK(url_has_http_scheme("HTTPS://h"));
    CHECK(url_has_http_scheme("http://h"));
    CHECK(!url_has_http_scheme("https:h"));
    CHECK(!url_has_http_scheme("ftp://h"));
    CHECK(!url_has_http_scheme(NULL));
}

static void redacts(const char *url, size_t cap, const char *want)
{
    char out[256];
    memset(out, 'x', sizeof out);
    url_redact(url, out, cap);
    if (strcmp(out, want) != 0)
        check_fail(__FILE__, __LINE__, "url_redact(%s) = %s, want %s", url ? url : "(null)",
                   out, want);
    check_count++;
}

static void test_redact(void)
{
    /* the MCP transport's cases */
    redacts("https://user:key@h:8/mcp?token=x#f", 256, "https://h:8/mcp");
    redacts("https://h/mcp", 256, "https://h/mcp");
    redacts("//u:p@h/p?q", 256, "//h/p");
    /* net/http's cases: a provider URL with a key in the query, in the user info */
    redacts("https://generativelanguage.googleapis.com/v1beta/models/g:stream?key=AIzaXYZ&alt=sse",
            256, "https://generativelanguage.googleapis.com/v1beta/models/g:stream");
    redacts("http://sk-abc:pw@127.0.0.1:9/v1/messages", 256, "http://127.0.0.1:9/v1/messages");
    redacts("user:pw@h/x?k=1", 256, "h/x");
    /* passwords with characters a URL should have encoded still never show */
    redacts("https://u:p#w@h/mcp", 256, "https://h/mcp");
    redacts("https://u:p?w@h/mcp", 256, "https://h/mcp");
    redacts("https://h?x=/y", 256, "https://h");
    redacts("https://h#frag/y", 256, "https://h");
    /* "://" inside a query is not a scheme */
    redacts("h/x?next=http://a:b@c/", 256, "h/x");
    /* IPv6, ports, percent-encoding as written */
    redacts("http://[::1]:8080/a%20b?x", 256, "http://[::1]:8080/a%20b");
    /* cut to the buffer, always terminated; nothing at all */
    redacts("https://h/abcdef", 10, "https://h");
    redacts("", 256, "");
    redacts(NULL, 256, "");
    char one[1] = { 'x' };
    url_redact("https://h/", one, 1);
    CHECK(one[0] == '\0');
    url_redact("https://h/", one, 0); /* no room: nothing written */
    CHECK(one[0] == '\0');
}

int main(void)
{
    RUN(test_resolve);
    RUN(test_same_origin);
    RUN(test_check_http);
    RUN(test_redact);
    return check_report();
}
