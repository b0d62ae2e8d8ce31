/* Unit tests of the rule files (prompt/rules) and their front matter (prompt/frontmatter):
 * discovery of every source, toggles, nested AGENTS.md scoping, conditional `paths:`
 * rules that match and that do not, invalid front matter, caps with their notes, and the
 * paths found in a user message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "sys/path.h"
#include "check.h"
#include "prompt/frontmatter.h"
#include "prompt/rules.h"
#include "tmpdir.h"

static void put(const char *root, const char *rel, const char *text)
{
    char *p = path_join(root, rel);
    char *dir = strdup(p);
    *strrchr(dir, '/') = '\0';
    CHECK(fs_mkdirs(dir, 0755, NULL) == HEW_OK);
    CHECK(fs_write_atomic(p, text, strlen(text), 0644, NULL) == HEW_OK);
    free(dir);
    free(p);
}

static char *render(const rules_set *rs, const char *const *paths, size_t n)
{
    buf b = BUF_INIT(0);
    rules_render(rs, paths, n, &b);
    return buf_detach(&b, NULL);
}

/* ---- front matter ------------------------------------------------------------------------ */

static void fm_ok(const char *text, bool present, bool has_paths, size_t n, const char *first,
                  const char *body)
{
    frontmatter fm = FRONTMATTER_INIT;
    hew_err err = HEW_ERR_INIT;
    hew_code rc = frontmatter_parse(text, strlen(text), &fm, &err);
    CHECK_INT(rc, HEW_OK);
    if (rc != HEW_OK)
        fprintf(stderr, "  for %s: %s\n", text, err.msg);
    CHECK_INT(fm.present, present);
    CHECK_INT(fm.has_paths, has_paths);
    CHECK_INT(fm.npaths, n);
    if (first && fm.npaths)
        CHECK_STR(fm.paths[0], first);
    if (body)
        CHECK_STR(text + fm.body, body);
    frontmatter_release(&fm);
}

static void fm_bad(const char *text)
{
    frontmatter fm = FRONTMATTER_INIT;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(frontmatter_parse(text, strlen(text), &fm, &err), HEW_E_INVALID);
    CHECK(!fm.present && fm.npaths == 0 && fm.paths == NULL);
    CHECK(err.msg[0] != '\0');
}

static void test_frontmatter(void)
{
    fm_ok("no front matter\n---\n", false, false, 0, NULL, "no front matter\n---\n");
    fm_ok("---\npaths:\n  - \"src/**/*.c\"\n  - lib/*.h\n---\nbody\n", true, true, 2,
          "src/**/*.c", "body\n");
    fm_ok("---\npaths: [src/**, \"docs/*.md\", 'it''s']\n---\nbody", true, true, 3, "src/**",
          "body");
    fm_ok("---\npaths: []\n---\nb", true, true, 0, NULL, "b");
    fm_ok("---\npaths:\n---\nb", true, false, 0, NULL, "b");
    fm_ok("---\npaths: '*.py'  # python only\n---\n", true, true, 1, "*.py", "");
    /* Cursor's `globs:` is read as `paths:` (the two lists join) */
    fm_ok("---\ndescription: C style\nglobs:\n  - x\ntitle: \"a: b\"\npaths:\n- a/b # c\n"
          "# comment\n\n---\n",
          true, true, 2, "x", "");
    fm_ok("\xEF\xBB\xBF---\r\npaths: [x]\r\n---\r\nbody\r\n", true, true, 1, "x", "body\r\n");
    fm_ok("---\ndescription: only\n---\nbody", true, false, 0, NULL, "body");
    fm_ok("---  \n---\nbody", true, false, 0, NULL, "body");

    /* Cursor's .mdc front matter, which YAML would refuse (`*` starts an alias) */
    frontmatter fm = FRONTMATTER_INIT;
    const char *mdc = "---\ndescription: \"API rules: REST\"\nglobs: *.ts, src/*.tsx ,\n"
                      "alwaysApply: false\n---\nbody";
    REQUIRE(frontmatter_parse(mdc, strlen(mdc), &fm, NULL) == HEW_OK);
    CHECK(fm.has_paths);
    CHECK_INT(fm.npaths, 2);
    CHECK_STR(fm.paths[0], "*.ts");
    CHECK_STR(fm.paths[1], "src/*.tsx");
    CHECK_INT(fm.always_apply, 0);
    CHECK_STR(fm.description, "API rules: REST");
    frontmatter_release(&fm);
    const char *always = "---\nalwaysApply: true\nglobs:\ndescription: x\n---\n";
    REQUIRE(frontmatter_parse(always, strlen(always), &fm, NULL) == HEW_OK);
    CHECK_INT(fm.always_apply, 1);
    CHECK(!fm.has_paths);
    frontmatter_release(&fm);
    const char *none = "---\ntitle: t\n---\n";
    REQUIRE(frontmatter_parse(none, strlen(none), &fm, NULL) == HEW_OK);
    CHECK_INT(fm.always_apply, -1);
    CHECK(fm.description == NULL);
    frontmatter_release(&fm);

    fm_bad("---\npaths: [a, b\n---\n");          /* unbalanced inline list */
    fm_bad("---\npaths:\n  - a\n");               /* no closing line */
    fm_bad("---\njust text\n---\n");              /* not key: value */
    fm_bad("---\n- a\n---\n");                    /* item outside a key */
    fm_bad("---\npaths:\n\t- a\n---\n");          /* tab indentation */
    fm_bad("---\npaths: [a]\npaths: [b]\n---\n"); /* twice */
    fm_bad("---\npaths: \"a\n---\n");             /* unclosed quote */
    fm_bad("---\npaths: {a: b}\n---\n");          /* a map */
    fm_bad("---\npaths: [a] x\n---\n");           /* text after the list */
    fm_bad("---\npaths: x\n  - y\n---\n");        /* value and items */
}

/* ---- discovery ---------------------------------------------------------------------------- */

typedef struct ws {
    char *root;  /* tmp */
    char *cwd;   /* root/ws */
    char *global;
} ws;

static ws make_ws(void)
{
    ws w;
    w.root = tmpdir_make("rules");
    w.cwd = path_join(w.root, "ws");
    w.global = path_join(w.root, "cfg/hew/rules");
    put(w.global, "zz.md", "Global Z.");
    put(w.global, "aa/one.md", "Global one.");
    put(w.cwd, ".clinerules/style.md", "Use tabs.");
    put(w.cwd, ".clinerules/a/deep.md", "Deep rule.");
    put(w.cwd, ".clinerules/workflows/release.md", "WORKFLOW");
    put(w.cwd, ".clinerules/hooks/pre.md", "HOOK");
    put(w.cwd, ".clinerules/skills/s/SKILL.md", "SKILL");
    put(w.cwd, ".clinerules/.hidden.md", "HIDDEN");
    put(w.cwd, ".clinerules/sub/workflows/kept.md", "Kept: only top-level workflows/ is out.");
    put(w.cwd, ".cursorrules", "Cursor rule.");
    put(w.cwd, ".cursor/rules/x.mdc", "Cursor dir rule.");
    put(w.cwd, ".windsurfrules", "Windsurf rule.");
    put(w.cwd, "AGENTS.md", "Root agents.");
    put(w.cwd, "src/net/AGENTS.md", "Net agents.");
    put(w.cwd, "src/AGENTS.md", "Src agents.");
    put(w.cwd, "node_modules/pkg/AGENTS.md", "NODE");
    put(w.cwd, "gen/AGENTS.md", "GITIGNORED");
    put(w.cwd, "secret/AGENTS.md", "CLINEIGNORED");
    put(w.cwd, ".gitignore", "gen/\n");
    put(w.cwd, ".clineignore", "secret/\n*.key\n");
    return w;
}

static void free_ws(ws *w)
{
    tmpdir_remove(w->root);
    free(w->root);
    free(w->cwd);
    free(w->global);
}

static void test_all_sources(void)
{
    ws w = make_ws();
    rules_opts o = rules_defaults();
    o.global_dir = w.global;
    rules_set rs = RULES_SET_INIT;
    REQUIRE(rules_load(w.cwd, &o, &rs, NULL) == HEW_OK);
    char *t = render(&rs, NULL, 0);
    REQUIRE(t != NULL);
    /* every source, in order */
    const char *g = strstr(t, "# Global rules");
    const char *c = strstr(t, "# .clinerules/\n");
    const char *cu = strstr(t, "# .cursorrules");
    const char *cd = strstr(t, "# .cursor/rules/");
    const char *wi = strstr(t, "# .windsurfrules");
    const char *ag = strstr(t, "# AGENTS.md");
    CHECK(g && c && cu && cd && wi && ag);
    CHECK(g < c && c < cu && cu < cd && cd < wi && wi < ag);
    CHECK(strstr(t, w.global) != NULL); /* the global folder is named */
    /* files by relative path, in byte order */
    CHECK(strstr(t, "aa/one.md\nGlobal one.\n\nzz.md\nGlobal Z.") != NULL);
    CHECK(strstr(t, "a/deep.md\nDeep rule.\n\nstyle.md\nUse tabs.\n\nsub/workflows/kept.md\n") !=
          NULL);
    /* excluded: top-level workflows/, hooks/, skills/, hidden files */
    CHECK(strstr(t, "WORKFLOW") == NULL);
    CHECK(strstr(t, "HOOK") == NULL);
    CHECK(strstr(t, "SKILL") == NULL);
    CHECK(strstr(t, "HIDDEN") == NULL);
    CHECK(strstr(t, "Cursor rule.") && strstr(t, "x.mdc\nCursor dir rule.") &&
          strstr(t, "Windsurf rule."));
    /* AGENTS.md: root first, nested ones scoped to their folders */
    CHECK(strstr(t, "## AGENTS.md (applies to the whole workspace)\n\nRoot agents.") != NULL);
    CHECK(strstr(t, "## src/AGENTS.md (applies to src/ and everything below it)\n\nSrc agents.") !=
          NULL);
    CHECK(strstr(t, "## src/net/AGENTS.md (applies to src/net/ and everything below it)\n\n"
                    "Net agents.") != NULL);
    CHECK(strstr(t, "deeper folder wins") != NULL);
    CHECK(strstr(t, "NODE") == NULL);         /* dependency folders are not searched */
    CHECK(strstr(t, "GITIGNORED") == NULL);   /* .gitignore honoured */
    CHECK(strstr(t, "CLINEIGNORED") == NULL); /* .clineignore honoured */
    /* the .clineignore text is kept apart, for the prompt */
    CHECK_STR(rs.clineignore, "secret/\n*.key");
    CHECK(strstr(t, "*.key") == NULL);
    free(t);

    /* the same inputs render the same bytes */
    char *a = render(&rs, NULL, 0), *b = render(&rs, NULL, 0);
    CHECK_STR(a, b);
    free(a);
    free(b);
    rules_set_release(&rs);
    free_ws(&w);
}

static void test_toggles(void)
{
    ws w = make_ws();
    static const char *const heads[] = { "# Global rules", "# .clinerules/", "# .cursorrules",
                                         "# .windsurfrules", "# AGENTS.md" };
    for (int off = 0; off < 6; off++) {
        rules_opts o = rules_defaults();
        o.global_dir = w.global;
        bool *flags[] = { &o.global, &o.clinerules, &o.cursorrules, &o.windsurfrules, &o.agents,
                          &o.clineignore };
        *flags[off] = false;
        rules_set rs = RULES_SET_INIT;
        REQUIRE(rules_load(w.cwd, &o, &rs, NULL) == HEW_OK);
        char *t = render(&rs, NULL, 0);
        REQUIRE(t != NULL);
        for (int h = 0; h < 5; h++)
            CHECK((strstr(t, heads[h]) == NULL) == (h == off));
        if (off == 2)
            CHECK(strstr(t, "# .cursor/rules/") == NULL);
        CHECK((rs.clineignore == NULL) == (off == 5));
        free(t);
        rules_set_release(&rs);
    }

    /* one file turned off by its path */
    char *style = path_join(w.cwd, ".clinerules/style.md");
    const char *disabled[] = { style, NULL };
    rules_opts o = rules_defaults();
    o.global_dir = w.global;
    o.disabled = disabled;
    rules_set rs = RULES_SET_INIT;
    REQUIRE(rules_load(w.cwd, &o, &rs, NULL) == HEW_OK);
    char *t = render(&rs, NULL, 0);
    CHECK(t && strstr(t, "Use tabs.") == NULL && strstr(t, "Deep rule.") != NULL);
    free(t);
    rules_set_release(&rs);
    free(style);
    free_ws(&w);
}

static void test_clinerules_file_and_xdg(void)
{
    char *root = tmpdir_make("rules-file");
    char *cwd = path_join(root, "ws");
    put(cwd, ".clinerules", "Single file rule.\n");
    char *cfg = path_join(root, "xdg");
    put(cfg, "hew/rules/g.md", "From XDG.");
    char *old = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;
    setenv("XDG_CONFIG_HOME", cfg, 1);
    rules_opts o = rules_defaults();
    char *gd = rules_global_dir(&o);
    char *want = path_join(cfg, "hew/rules");
    CHECK_STR(gd, want);
    rules_set rs = RULES_SET_INIT;
    REQUIRE(rules_load(cwd, &o, &rs, NULL) == HEW_OK);
    CHECK(rs.clinerules_file);
    char *t = render(&rs, NULL, 0);
    REQUIRE(t != NULL);
    CHECK(strstr(t, "# .clinerules\n\nThese rules come from the .clinerules file at the top of "
                    "the workspace:\n\nSingle file rule.") != NULL);
    CHECK(strstr(t, "g.md\nFrom XDG.") != NULL);
    CHECK(rs.clineignore == NULL);
    free(t);
    rules_set_release(&rs);
    if (old)
        setenv("XDG_CONFIG_HOME", old, 1);
    else
        unsetenv("XDG_CONFIG_HOME");
    free(old);
    free(gd);
    free(want);
    tmpdir_remove(root);
    free(root);
    free(cwd);
    free(cfg);
}

/* ---- conditional rules ------------------------------------------------------------------- */

static void test_conditional(void)
{
    char *root = tmpdir_make("rules-cond");
    char *cwd = path_join(root, "ws");
    put(cwd, ".clinerules/c.md", "---\npaths:\n  - \"src/**/*.c\"\n  - Makefile\n---\nC RULE\n");
    put(cwd, ".clinerules/docs.md", "---\npaths: [docs/]\n---\nDOCS RULE\n");
    put(cwd, ".clinerules/never.md", "---\npaths: []\n---\nNEVER RULE\n");
    put(cwd, ".clinerules/plain.md", "---\ndescription: always\n---\nPLAIN RULE\n");
    put(cwd, ".clinerules/raw.md", "---\npaths: [src/**\n---\nRAW RULE\n");
    rules_opts o = rules_defaults();
    o.global = false;
    rules_set rs = RULES_SET_INIT;
    REQUIRE(rules_load(cwd, &o, &rs, NULL) == HEW_OK);

    /* nothing in play: only unconditional rules (and the raw one) */
    char *t = render(&rs, NULL, 0);
    REQUIRE(t != NULL);
    CHECK(strstr(t, "C RULE") == NULL);
    CHECK(strstr(t, "DOCS RULE") == NULL);
    CHECK(strstr(t, "NEVER RULE") == NULL);
    CHECK(strstr(t, "PLAIN RULE") != NULL);
    CHECK(strstr(t, "description: always") == NULL); /* valid front matter is removed */
    /* invalid front matter: the rule is included as it is, front matter and all */
    CHECK(strstr(t, "raw.md\n---\npaths: [src/**\n---\nRAW RULE") != NULL);
    free(t);

    /* matching paths, in the forms callers give them */
    char *abs = path_join(cwd, "src/net/http.c");
    const char *const hit[][1] = { { "src/net/http.c" }, { "./src/a/b.c" }, { "@src/x/y.c" },
                                   { "Makefile" } };
    for (size_t i = 0; i < 4; i++) {
        t = render(&rs, hit[i], 1);
        CHECK(t && strstr(t, "C RULE") != NULL);
        CHECK(t && strstr(t, "NEVER RULE") == NULL);
        free(t);
    }
    const char *const a1[] = { abs };
    t = render(&rs, a1, 1);
    CHECK(t && strstr(t, "C RULE") != NULL);
    free(t);
    /* not matching: other folders, other extensions, a path outside the workspace */
    const char *const miss[] = { "src/net/http.h", "lib/a.c", "/elsewhere/src/a/b.c", "",
                                 "docs" };
    t = render(&rs, miss, 5);
    CHECK(t && strstr(t, "C RULE") == NULL);
    CHECK(t && strstr(t, "DOCS RULE") == NULL);
    free(t);
    /* a glob ending in '/' covers the folder's content */
    const char *const d[] = { "lib/a.c", "docs/guide/intro.md" };
    t = render(&rs, d, 2);
    CHECK(t && strstr(t, "DOCS RULE") != NULL);
    CHECK(t && strstr(t, "C RULE") == NULL);
    free(t);
    rules_set_release(&rs);
    free(abs);
    tmpdir_remove(root);
    free(root);
    free(cwd);
}

/* ---- caps -------------------------------------------------------------------------------- */

static void test_caps(void)
{
    char *root = tmpdir_make("rules-caps");
    char *cwd = path_join(root, "ws");
    char big[3001];
    memset(big, 'x', 3000);
    big[3000] = '\0';
    put(cwd, ".clinerules/a.md", big);
    put(cwd, ".clinerules/b.md", "small b");
    char c[400];
    memset(c, 'c', sizeof c - 1);
    c[sizeof c - 1] = '\0';
    memcpy(c, "small c", 7);
    put(cwd, ".clinerules/c.md", c);
    rules_opts o = rules_defaults();
    o.global = false;
    o.max_file_bytes = 1000;
    o.max_total_bytes = 1300;
    rules_set rs = RULES_SET_INIT;
    REQUIRE(rules_load(cwd, &o, &rs, NULL) == HEW_OK);
    char *t = render(&rs, NULL, 0);
    REQUIRE(t != NULL);
    CHECK(strstr(t, "[hew: a.md is 3000 bytes long; only its first 1000 bytes are shown "
                    "here.]") != NULL);
    CHECK(strstr(t, "small b") != NULL);
    /* the total cap leaves c.md out, and says so with its path */
    CHECK(strstr(t, "small c") == NULL);
    CHECK(strstr(t, "[hew: the rules reached their limit of 1300 bytes; 1 more rule file was "
                    "left out: ") != NULL);
    CHECK(strstr(t, "/ws/.clinerules/c.md.]") != NULL);
    free(t);
    rules_set_release(&rs);

    /* a file cut in the middle of a multi-byte character is cut before it */
    char utf[1002];
    memset(utf, 'y', 999);
    memcpy(utf + 999, "\xc3\xa9", 3); /* é spans bytes 999-1000 */
    put(cwd, ".clinerules/a.md", utf);
    REQUIRE(rules_load(cwd, &o, &rs, NULL) == HEW_OK);
    CHECK(rs.nfiles >= 1 && rs.files[0].cut && strlen(rs.files[0].text) == 999);
    rules_set_release(&rs);
    tmpdir_remove(root);
    free(root);
    free(cwd);
}

static void test_empty_workspace(void)
{
    char *root = tmpdir_make("rules-empty");
    rules_opts o = rules_defaults();
    o.global_dir = "/nonexistent/hew/rules";
    rules_set rs = RULES_SET_INIT;
    REQUIRE(rules_load(root, &o, &rs, NULL) == HEW_OK);
    CHECK_INT(rs.nfiles, 0);
    char *t = render(&rs, NULL, 0);
    CHECK_STR(t, "");
    free(t);
    rules_set_release(&rs);
    tmpdir_remove(root);
    free(root);
}

static void test_paths_in_text(void)
{
    char *out[16];
    size_t n = rules_paths_in_text(
        "Fix the bug in `src/net/http.c:120`, see @docs/guide.md and main.c. Not "
        "https://example.com/a.c, not 3.5, nor 'e.g.'; (lib/util.h) and src/net/http.c again.",
        out, 16);
    CHECK_INT(n, 4);
    if (n == 4) {
        CHECK_STR(out[0], "src/net/http.c");
        CHECK_STR(out[1], "docs/guide.md");
        CHECK_STR(out[2], "main.c");
        CHECK_STR(out[3], "lib/util.h");
    }
    for (size_t i = 0; i < n; i++)
        free(out[i]);
    CHECK_INT(rules_paths_in_text("a/b c/d e/f", out, 2), 2);
    free(out[0]);
    free(out[1]);
    CHECK_INT(rules_paths_in_text("", out, 2), 0);
}

/* A hostile repository's rule files that are links to files outside it (a key, a
 * password file) are not read into the prompt; a link that stays inside is read. The
 * user's own global rules may link anywhere. */
static void test_links_outside(void)
{
    char *root = tmpdir_make("rules-links");
    char *out = tmpdir_make("rules-outside");
    char *global = tmpdir_make("rules-global");
    put(out, "id_rsa", "SECRET-KEY-MATERIAL");
    put(out, "global.md", "GLOBAL-LINKED-RULE");
    put(root, "docs/rule.md", "INSIDE-LINKED-RULE");
    put(root, ".clinerules/plain.md", "PLAIN-RULE");
    char target[512], link[512];
    snprintf(target, sizeof target, "%s/id_rsa", out);
    const char *links[] = { ".clinerules/evil.md", ".cursorrules", ".windsurfrules",
                            "AGENTS.md", ".clineignore" };
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        snprintf(link, sizeof link, "%s/%s", root, links[i]);
        CHECK(symlink(target, link) == 0);
    }
    snprintf(link, sizeof link, "%s/.clinerules/inside.md", root);
    CHECK(symlink("../docs/rule.md", link) == 0);
    snprintf(target, sizeof target, "%s/global.md", out);
    snprintf(link, sizeof link, "%s/linked.md", global);
    CHECK(symlink(target, link) == 0);

    rules_opts o = rules_defaults();
    o.global_dir = global;
    rules_set rs = RULES_SET_INIT;
    REQUIRE(rules_load(root, &o, &rs, NULL) == HEW_OK);
    char *t = render(&rs, NULL, 0);
    CHECK(t && strstr(t, "SECRET-KEY-MATERIAL") == NULL);
    CHECK(t && strstr(t, "PLAIN-RULE") != NULL);
    CHECK(t && strstr(t, "INSIDE-LINKED-RULE") != NULL);
    CHECK(t && strstr(t, "GLOBAL-LINKED-RULE") != NULL);
    CHECK(t && strstr(t, "evil.md leads outside the workspace") != NULL);
    CHECK(rs.clineignore == NULL || strstr(rs.clineignore, "SECRET") == NULL);
    free(t);
    rules_set_release(&rs);
    tmpdir_remove(root);
    tmpdir_remove(out);
    tmpdir_remove(global);
    free(root);
    free(out);
    free(global);
}

/* ---- other agents' files ------------------------------------------------------------- */

static bool has(const char *t, const char *needle)
{
    return t && strstr(t, needle) != NULL;
}

/* Cursor's .mdc rule types: always, by globs, on request (told of, not shown), manual
 * (left out); a rule file of that folder without front matter always applies. */
static void test_cursor_mdc_types(void)
{
    char *root = tmpdir_make("mdc");
    char *cwd = path_join(root, "ws");
    put(cwd, ".cursor/rules/always.mdc", "---\nalwaysApply: true\nglobs: *.never\n---\nALWAYS");
    put(cwd, ".cursor/rules/ts.mdc", "---\nglobs: *.ts, web/*.tsx\nalwaysApply: false\n---\nTS");
    put(cwd, ".cursor/rules/api.mdc",
        "---\ndescription: How the REST API is versioned\nglobs:\nalwaysApply: false\n---\n"
        "API BODY");
    put(cwd, ".cursor/rules/manual.mdc", "---\ndescription:\nglobs:\nalwaysApply: false\n---\n"
                                         "MANUAL");
    put(cwd, ".cursor/rules/plain.md", "PLAIN");
    rules_opts o = rules_defaults();
    o.global = false;
    o.home = root;
    rules_set rs = RULES_SET_INIT;
    REQUIRE(rules_load(cwd, &o, &rs, NULL) == HEW_OK);
    char *t = render(&rs, NULL, 0);
    CHECK(has(t, "ALWAYS") && has(t, "PLAIN"));
    CHECK(!has(t, "TS\n") && !has(t, "MANUAL") && !has(t, "API BODY"));
    CHECK(has(t, "read_file .cursor/rules/api.mdc") && has(t, "How the REST API is versioned"));
    free(t);
    const char *paths[] = { "web/app.tsx" };
    t = render(&rs, paths, 1);
    CHECK(has(t, "TS") && !has(t, "MANUAL"));
    free(t);
    rules_set_release(&rs);
    tmpdir_remove(root);
    free(root);
    free(cwd);
}

/* CLAUDE.md and GEMINI.md: every place Claude Code and Gemini CLI read, nested ones
 * scoped, the user's own; `@path` imports (not in code; each file once; a cycle ends;
 * five levels at most); a workspace's file cannot import what lies outside the
 * workspace (~/, an absolute path, ../), the user's own file can; each source off. */
static void test_claude_and_gemini(void)
{
    char *root = tmpdir_make("claude");
    char *cwd = path_join(root, "ws");
    char claude[1024];
    snprintf(claude, sizeof claude,
             "Root claude. See @docs/style.md and @README for more.\n"
             "Mail me@example.com. `@docs/code.md` and\n```\n@docs/fence.md\n```\n"
             "Secrets: @~/secret.txt @../outside.txt @%s/abs.txt\n",
             root);
    put(cwd, "CLAUDE.md", claude);
    put(root, "abs.txt", "ABSOLUTE OUTSIDE");
    put(cwd, "docs/style.md", "STYLE, which imports @deep1.md.");
    put(cwd, "docs/deep1.md", "DEEP1 @deep2.md");
    put(cwd, "docs/deep2.md", "DEEP2 @deep3.md @style.md");
    put(cwd, "docs/deep3.md", "DEEP3 @deep4.md");
    put(cwd, "docs/deep4.md", "DEEP4 @deep5.md");
    put(cwd, "docs/deep5.md", "DEEP5 @deep6.md");
    put(cwd, "docs/deep6.md", "DEEP6");
    put(cwd, "README", "README TEXT");
    put(cwd, "docs/code.md", "IN A CODE SPAN");
    put(cwd, "docs/fence.md", "IN A FENCE");
    put(cwd, ".claude/CLAUDE.md", "Dot claude.");
    put(cwd, "CLAUDE.local.md", "Local claude.");
    put(cwd, "api/CLAUDE.md", "Api claude.");
    put(cwd, "GEMINI.md", "Root gemini.");
    put(cwd, "web/GEMINI.md", "Web gemini.");
    put(root, "secret.txt", "HOME SECRET");
    put(root, "outside.txt", "OUTSIDE");
    put(root, ".claude/CLAUDE.md", "User claude @~/notes.md");
    put(root, "notes.md", "USER NOTES");
    put(root, ".gemini/GEMINI.md", "User gemini.");
    rules_opts o = rules_defaults();
    o.global = false;
    o.home = root;
    rules_set rs = RULES_SET_INIT;
    REQUIRE(rules_load(cwd, &o, &rs, NULL) == HEW_OK);
    char *t = render(&rs, NULL, 0);
    REQUIRE(t);
    const char *in_order[] = { "# CLAUDE.md", "Root claude.", "STYLE", "DEEP1", "DEEP4",
                               "README TEXT", "Dot claude.", "Local claude.", "Api claude.",
                               "# GEMINI.md", "Root gemini.", "Web gemini." };
    const char *at = t;
    for (size_t i = 0; i < sizeof in_order / sizeof in_order[0]; i++) {
        const char *f = strstr(at, in_order[i]);
        CHECK(f != NULL);
        if (!f)
            fprintf(stderr, "missing or out of order: %s\n", in_order[i]);
        at = f ? f : at;
    }
    CHECK(has(t, "# ~/.claude/CLAUDE.md") && has(t, "User claude") && has(t, "USER NOTES"));
    CHECK(has(t, "# ~/.gemini/GEMINI.md") && has(t, "User gemini."));
    CHECK(has(t, "## docs/style.md (imported by CLAUDE.md)"));
    CHECK(has(t, "## api/CLAUDE.md (applies to api/ and everything below it)"));
    CHECK(!has(t, "DEEP5") && !has(t, "DEEP6")); /* five levels of imports */
    CHECK(!has(t, "IN A CODE SPAN") && !has(t, "IN A FENCE"));
    CHECK(!has(t, "HOME SECRET") && !has(t, "OUTSIDE"));
    CHECK(has(t, "imports ~/secret.txt, which is outside the workspace"));
    CHECK(has(t, "imports ../outside.txt, which is outside the workspace"));
    CHECK(has(t, "imports /") && has(t, "/abs.txt, which is outside the workspace"));
    CHECK(!has(t, "ABSOLUTE OUTSIDE"));
    const char *style = strstr(t, "STYLE, which");
    CHECK(style && !strstr(style + 1, "STYLE, which")); /* imported once, the cycle ended */
    free(t);
    rules_set_release(&rs);
    o.claude = false;
    REQUIRE(rules_load(cwd, &o, &rs, NULL) == HEW_OK);
    t = render(&rs, NULL, 0);
    CHECK(!has(t, "claude") && !has(t, "STYLE") && has(t, "Root gemini."));
    free(t);
    rules_set_release(&rs);
    o.claude = true;
    o.gemini = false;
    REQUIRE(rules_load(cwd, &o, &rs, NULL) == HEW_OK);
    t = render(&rs, NULL, 0);
    CHECK(has(t, "Root claude.") && !has(t, "gemini"));
    free(t);
    rules_set_release(&rs);
    tmpdir_remove(root);
    free(root);
    free(cwd);
}

int main(void)
{
    RUN(test_frontmatter);
    RUN(test_all_sources);
    RUN(test_toggles);
    RUN(test_clinerules_file_and_xdg);
    RUN(test_conditional);
    RUN(test_caps);
    RUN(test_empty_workspace);
    RUN(test_paths_in_text);
    RUN(test_links_outside);
    RUN(test_cursor_mdc_types);
    RUN(test_claude_and_gemini);
    return check_report();
}
