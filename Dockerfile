# duel-server on Debian bookworm with the official Swift toolchain image.
FROM swift:6.1-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libwebsockets-dev libpq-dev libsodium-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product duel-server --static-swift-stdlib

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libwebsockets17 libpq5 libsodium23 ca-certificates \
    && rm -rf /var/lib/apt/lists/* && useradd --system --home /app quizduel
WORKDIR /app
COPY --from=build /src/.build/release/duel-server /usr/local/bin/duel-server
COPY sql ./sql
COPY web ./web
ENV QUIZDUEL_SQL_DIR=/app/sql QUIZDUEL_WEB_DIR=/app/web PORT=8080
USER quizduel
EXPOSE 8080
ENTRYPOINT ["duel-server"]
