/* excludes — the shadow repository's info/exclude (see excludes.h). It must never write
 * anywhere but the shadow repository and never modify the workspace's ignore files. */
#include "checkpoint/excludes.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/fs.h"
#include "sys/path.h"

static const char *const fixed[] = {
    "# Written by hew before every checkpoint; edits are replaced.",
    /* dependency and build folders */
    "node_modules/", "bower_components/", "jspm_packages/", "vendor/", ".venv/", "venv/",
    "__pycache__/", ".pytest_cache/", ".mypy_cache/", ".ruff_cache/", ".tox/", ".nox/",
    "target/", "dist/", "build/", "out/", "bin/", "obj/", ".gradle/", ".next/", ".nuxt/",
    ".svelte-kit/", ".turbo/", ".parcel-cache/", ".sass-cache/", ".cache/", "coverage/",
    ".nyc_output/", "Pods/", ".terraform/", ".idea/", ".vs/", ".vscode/", ".zig-cache/",
    "zig-out/", ".dart_tool/", ".stack-work/", "elm-stuff/",
    /* compiled objects */
    "*.o", "*.obj", "*.a", "*.lib", "*.so", "*.so.*", "*.dylib", "*.dll", "*.exe", "*.class",
    "*.jar", "*.war", "*.pyc", "*.pyo", "*.wasm",
    /* media */
    "*.png", "*.jpg", "*.jpeg", "*.gif", "*.bmp", "*.ico", "*.icns", "*.webp", "*.tif",
    "*.tiff", "*.heic", "*.heif", "*.avif", "*.psd", "*.raw", "*.cr2", "*.nef", "*.eps",
    "*.mp3", "*.wav", "*.flac", "*.ogg", "*.opus", "*.aac", "*.m4a", "*.wma", "*.aiff",
    "*.mp4", "*.m4v", "*.mov", "*.avi", "*.mkv", "*.webm", "*.wmv", "*.flv", "*.mpg",
    "*.mpeg", "*.3gp", "*.ttf", "*.otf", "*.woff", "*.woff2",
    /* archives and disk images */
    "*.zip", "*.tar", "*.gz", "*.tgz", "*.bz2", "*.xz", "*.zst", "*.7z", "*.rar", "*.iso",
    "*.dmg", "*.msi", "*.bin",
    /* env files and keys */
    ".env", ".env.*", "*.env", ".envrc", "*.pem", "*.key", "*.p12", "*.pfx",
    /* databases */
    "*.db", "*.sqlite", "*.sqlite3", "*.db-journal", "*.db-wal", "*.db-shm", "*.mdb",
    "*.accdb",
    /* logs and caches */
    "*.log", "logs/", "npm-debug.log*", "yarn-error.log*", "*.swp", "*.swo", "*.tmp",
    ".DS_Store", "Thumbs.db",
};

/* Git-LFS patterns: the first field of each .gitattributes line that sets filter=lfs. */
static void add_lfs(buf *b, const char *workspace)
{
    char *p = path_join(workspace, ".gitattributes");
    char *text = NULL;
    size_t len = 0;
    if (!p || fs_read_file(p, (size_t)1 << 20, &text, &len, NULL) != HEW_OK) {
        free(p);
        return;
    }
    free(p);
    bool header = false;
    char *line = text;
    while (line < text + len) {
        char *nl = memchr(line, '\n', (size_t)(text + len - line));
        char *end = nl ? nl : text + len;
        *end = '\0';
        if (strstr(line, "filter=lfs")) {
            char *s = line;
            while (*s == ' ' || *s == '\t')
                s++;
            size_t n = strcspn(s, " \t\r");
            if (n && *s != '#' && *s != '"') {
                if (!header)
                    buf_puts(b, "# Git-LFS patterns from the workspace's .gitattributes\n");
                header = true;
                buf_append(b, s, n);
                buf_putc(b, '\n');
            }
        }
        line = end + 1;
    }
    free(text);
}

hew_code excludes_write(const char *path, const char *workspace, hew_err *err)
{
    buf b = BUF_INIT((size_t)1 << 20);
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        buf_puts(&b, fixed[i]);
        buf_putc(&b, '\n');
    }
    add_lfs(&b, workspace);
    hew_code rc = buf_check(&b, "checkpoint excludes", err);
    if (rc == HEW_OK) {
        char *have = NULL;
        size_t len = 0;
        bool same = fs_read_file(path, (size_t)2 << 20, &have, &len, NULL) == HEW_OK &&
                    len == b.len && memcmp(have, b.data, len) == 0;
        free(have);
        if (!same)
            rc = fs_write_atomic(path, b.data, b.len, 0600, err);
    }
    buf_release(&b);
    return rc;
}
