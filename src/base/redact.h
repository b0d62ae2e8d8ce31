/* redact — the one place that knows what a secret looks like, and removes it from text
 * before that text is stored, emitted as an event, printed or logged. Every other module
 * (the log, provider errors, the fake provider's recorder, `hew config`'s masked key, the
 * child environment of commands) asks here.
 *
 * It must never keep more than the public, fixed prefix of a vendor's key ("sk-proj-",
 * "ghp_", "AKIA": the part that says which kind of key it is, not part of the secret), and
 * never touch ordinary text: a sentence, a path, a git hash, "key=value", "max_tokens"
 * all stay as they are.
 *
 * Two sources of secrets:
 *   - known values: the session's API key, MCP header and env values, and the values of
 *     the environment variables whose names say they hold a secret (redact_env_secret,
 *     read once, on first use). Values shorter than REDACT_MIN_SECRET bytes are never
 *     registered ("1", "true" would hide ordinary text). Each occurrence is replaced.
 *   - shapes (all case-sensitive unless said otherwise, each at a token boundary):
 *       sk-ant-… sk-proj-… sk-… (OpenAI, Anthropic, OpenRouter, DeepSeek; at least 16
 *       characters after "sk-", which may include OpenAI's '*' masking), AIza + 30 or more
 *       (Google), ghp_ gho_ ghs_ ghu_ ghr_ + 20 or more, github_pat_ + 20 or more, xai- and
 *       gsk_ + 20 or more, AKIA/ASIA + 16 upper-case letters or digits (AWS key ids),
 *       JWTs (eyJ….eyJ….…), "Bearer <token>" (case-insensitive, a token of 16 or more);
 *       header lines (Authorization, Proxy-Authorization, x-api-key, x-goog-api-key,
 *       api-key: the value to the end of the line or a quote), URL query parameters
 *       (?key= &api_key= &apikey= &access_token= &token=), URL passwords
 *       (scheme://user:password@host), JSON string fields named api_key, apiKey, api-key,
 *       x-api-key, x-goog-api-key, authorization, proxy-authorization, access_token,
 *       refresh_token, client_secret, password (also inside a JSON string, \"…\"), and
 *       NAME=value where NAME ends in key, token or secret (case-insensitive) and the
 *       value is 16 or more characters of a key's alphabet (letters, digits, + / = _ . ~ -),
 *       or NAME ends in password/passwd and the value is not empty.
 * A secret becomes "[REDACTED]", after its vendor prefix when it has one
 * ("sk-proj-[REDACTED]", "AKIA[REDACTED]"), after the scheme word of an authorization
 * value ("Bearer [REDACTED]").
 *
 * Thread-safe: any thread may redact while another registers a secret. */
#ifndef HEW_BASE_REDACT_H
#define HEW_BASE_REDACT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

#define REDACT_MARK "[REDACTED]"
#define REDACT_MIN_SECRET 8  /* bytes: shorter values are never registered */
#define REDACT_SECRETS_MAX 64 /* known values kept (later ones still match by shape) */

/* Append in[0..n) to out with every secret replaced (see above). Errors are out's sticky
 * error. */
void redact_text(const char *in, size_t n, buf *out);

/* A new NUL-terminated copy of s with secrets replaced; NULL when s is NULL or memory ran
 * out. The caller frees it. */
char *redact_dup(const char *s);

/* Redact the NUL-terminated string in s[0..cap) in place; a result longer than cap - 1
 * bytes is cut at a UTF-8 character boundary. */
void redact_inplace(char *s, size_t cap);

/* True when the whole of value is a registered secret, or has the shape of a vendor's
 * key or a JWT (for values without a telling name: MY_OPENAI=sk-proj-…). */
bool redact_is_key(const char *value);

/* True when s[0..n) holds something redact_text would replace. */
bool redact_found(const char *s, size_t n);

/* Register a secret value (copied; process-wide; values shorter than REDACT_MIN_SECRET
 * bytes or already known are ignored). */
void redact_secret_add(const char *value);

/* True when value is a registered secret (exactly), or when it is one of the values of the
 * secret environment variables. */
bool redact_secret_known(const char *value);

/* True when an environment variable (or a header) of this name holds a secret by its
 * name: a '_' or '-' separated word (case-insensitive) that is TOKEN, SECRET, SECRETS, PASSWORD, PASSWD or
 * KEY, or ends in TOKEN, SECRET, PASSWORD, PASSWD, APIKEY, ACCESSKEY, SECRETKEY or
 * PRIVATEKEY (GITHUB_TOKEN, NPM_TOKEN, AWS_SECRET_ACCESS_KEY, OPENAI_API_KEY, PGPASSWORD,
 * CLIENT_SECRET_ID, STRIPE_KEY; not TOKENIZERS_PARALLELISM, MONKEY or KEYTIMEOUT). name
 * is name[0..n) (it need not be NUL-terminated). */
bool redact_env_secret(const char *name, size_t n);

/* True when a header of this name carries a secret (authorization, proxy-authorization,
 * x-api-key, x-goog-api-key, api-key; case-insensitive). */
bool redact_header_is_secret(const char *name);

/* Append the value to show for header name: value itself, or its masked form when the
 * header is secret ("Bearer [REDACTED]" for the authorization ones, "[REDACTED]"
 * otherwise). For request recorders and HTTP debug output. */
void redact_header(const char *name, const char *value, buf *out);

/* Write the form of an API key that may be shown, into out (n bytes): its first 3
 * characters when it is 12 or more long (and they are ASCII), then "***" ("sk-***",
 * "***"). */
void redact_key_hint(const char *key, char *out, size_t n);

#endif
