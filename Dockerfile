# duel-server on Debian bookworm. Build: the official Swift toolchain image (the
# dependencies need Swift 6.2 or later); run: debian:bookworm-slim with the shared C
# libraries only, as a non-root user.
#
#   docker build -t quizduel/duel-server .
#   docker run --rm quizduel/duel-server --help
#   duel-server migrate      (as the database owner: schema and seed banks, then exits)
#   duel-server              (the server: checks the schema is current, then serves)
#
# docker-compose.yml runs both against Postgres 15.

FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libwebsockets-dev libpq-dev libsodium-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The manifest (and Package.resolved when there is one) first, so the resolved dependencies
# are a layer of their own that survives source changes.
COPY Package.* ./
RUN if [ -f Package.resolved ]; then swift package resolve --force-resolved-versions; else swift package resolve; fi
COPY Sources ./Sources
# The manifest declares the Swift test targets, so their directories must exist to load it
# (.dockerignore leaves out the Python tests: Tests/web, Tests/deploy, Tests/schema).
COPY Tests ./Tests
RUN swift build -c release --product duel-server --static-swift-stdlib \
    && install -D -m 0755 .build/release/duel-server /out/duel-server

FROM debian:bookworm-slim
# libwebsockets-evlib-ev and libev4: the server runs libwebsockets on a libev loop (lws loads
# its libev plugin at run time). curl: the health check.
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        libwebsockets17 libwebsockets-evlib-ev libev4 libpq5 libsodium23 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 quizduel \
    && useradd --system --uid 10001 --gid quizduel --home-dir /app --no-create-home \
        --shell /usr/sbin/nologin quizduel
WORKDIR /app
COPY --from=build /out/duel-server /usr/local/bin/duel-server
COPY sql ./sql
COPY web ./web
ENV QUIZDUEL_SQL_DIR=/app/sql \
    QUIZDUEL_WEB_DIR=/app/web \
    HOST=0.0.0.0 \
    PORT=8080
# Numeric, so that orchestrators can check it is not root without reading /etc/passwd.
USER 10001:10001
EXPOSE 8080
# Ready: the database is reachable and the server accepts players. ${PORT} is expanded by
# /bin/sh (dash) at check time, so a PORT given to `docker run -e` is followed.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
    CMD curl -fsS -o /dev/null "http://127.0.0.1:${PORT}/readyz" || exit 1
STOPSIGNAL SIGTERM
ENTRYPOINT ["duel-server"]
