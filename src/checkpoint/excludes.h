/* excludes — what checkpoints never snapshot: the fixed list below, written to the shadow
 * repository's info/exclude, plus the workspace's Git-LFS patterns (.gitattributes lines
 * with filter=lfs). The workspace's own .gitignore files are read by git directly (the
 * workspace is the shadow's work tree), and its .git/info/exclude is the shadow's
 * core.excludesFile: both are used, never modified. Internal to src/checkpoint/.
 *
 * The fixed list (gitignore syntax; a pattern without '/' matches at any depth):
 *   dependency and build folders — node_modules/ bower_components/ jspm_packages/ vendor/
 *     .venv/ venv/ __pycache__/ .pytest_cache/ .mypy_cache/ .ruff_cache/ .tox/ .nox/
 *     target/ dist/ build/ out/ bin/ obj/ .gradle/ .next/ .nuxt/ .svelte-kit/ .turbo/
 *     .parcel-cache/ .sass-cache/ .cache/ coverage/ .nyc_output/ Pods/ .terraform/
 *     .idea/ .vs/ .vscode/ .zig-cache/ zig-out/ .dart_tool/ .stack-work/ elm-stuff/
 *   compiled objects — *.o *.obj *.a *.lib *.so *.so.* *.dylib *.dll *.exe *.class
 *     *.jar *.war *.pyc *.pyo *.wasm
 *   media — images, audio and video by extension (*.png *.jpg … *.mp4 *.mov …; *.svg is
 *     text and is kept)
 *   archives and disk images — *.zip *.tar *.gz *.tgz *.bz2 *.xz *.zst *.7z *.rar *.iso
 *     *.dmg *.msi *.bin
 *   env files and keys — .env .env.* *.env .envrc *.pem *.key *.p12 *.pfx
 *   databases — *.db *.sqlite *.sqlite3 *.db-journal *.db-wal *.db-shm *.mdb *.accdb
 *   logs and caches — *.log logs/ npm-debug.log* yarn-error.log* *.swp *.swo *.tmp
 *     .DS_Store Thumbs.db
 * Files larger than the size limit are left out separately (stage.c). */
#ifndef HEW_CHECKPOINT_EXCLUDES_H
#define HEW_CHECKPOINT_EXCLUDES_H

#include "base/err.h"

/* Write path (the shadow's info/exclude) when its content would change. workspace is
 * where .gitattributes is read for LFS patterns. */
hew_code excludes_write(const char *path, const char *workspace, hew_err *err);

#endif
