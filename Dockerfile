# Dockerfile — hew in a container for CI jobs, evaluation harnesses and Kubernetes Jobs.
# Two stages on Debian slim: `build` compiles the release binary with build packages of
# scripts/install-deps (--build); the final stage holds only the runtime libraries `hew`
# links (its ELF NEEDED list), the libcurl it loads with dlopen, and the programs its tools run
# (git for checkpoints, universal-ctags for code definitions). It must never carry
# compilers, -dev packages, the source tree or any key into the final image, nor run as
# root. tests/e2e/docker_image.sh checks all of this against the built binary.
#
#   docker build -t hew .
#   docker run --rm -e ANTHROPIC_API_KEY -v "$PWD:/work" -u "$(id -u):$(id -g)" \
#       hew -p "Fix the failing test" --json --ephemeral
#   docker run --rm -e ANTHROPIC_API_KEY -v "$PWD:/work" hew batch --jobs 4 tasks.jsonl
# docs/ci.md says more.

ARG DEBIAN_RELEASE=bookworm

FROM debian:${DEBIAN_RELEASE}-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      build-essential cmake pkg-config \
      libcurl4-openssl-dev libjansson-dev libpcre2-dev libsqlite3-dev \
      libedit-dev libmd4c-dev libutf8proc-dev libmd-dev libpng-dev libjpeg62-turbo-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release \
 && cmake --build build/release --target hew_cli -j "$(nproc)" \
 && strip build/release/hew \
 && build/release/hew --version

FROM debian:${DEBIAN_RELEASE}-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libjansson4 libpcre2-8-0 libsqlite3-0 libmd0 libpng16-16 libjpeg62-turbo libedit2 libmd4c0 libutf8proc2 \
      libcurl4 ca-certificates git universal-ctags \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10001 --shell /bin/bash hew \
 && mkdir /work \
 && chown hew:hew /work
COPY --from=build /src/build/release/hew /usr/local/bin/hew
ENV SHELL=/bin/bash
USER hew
WORKDIR /work
ENTRYPOINT ["hew"]
CMD ["--help"]
