# syntax=docker/dockerfile:1

# Build stage: the release binary, with SQLite and Swagger UI compiled in.
FROM rust:1.95-slim-bookworm AS builder
WORKDIR /src
# The dependencies first, in a layer of their own that only a change to
# Cargo.toml or Cargo.lock rebuilds: against empty stand-ins for qttt's own
# targets (cargo reads every target the manifest names, so each needs a file).
COPY Cargo.toml Cargo.lock ./
RUN mkdir -p src benches tests/integration \
    && echo 'fn main() {}' > src/main.rs && touch src/lib.rs tests/integration/main.rs \
    && for bench in engine api load bot analysis; do echo 'fn main() {}' > "benches/$bench.rs"; done \
    && cargo build --release --locked --bin qttt \
    && rm -rf src benches tests
# Then qttt itself. Its files keep the times they had in the build context,
# older than the stand-ins', so they are touched for cargo to see them as new.
COPY . .
RUN touch src/lib.rs src/main.rs && cargo build --release --locked --bin qttt

# Runtime stage: the binary alone, as an unprivileged user, games kept on /data.
FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --create-home --home-dir /data qttt
COPY --from=builder /src/target/release/qttt /usr/local/bin/qttt
USER 10001
WORKDIR /data
ENV HOST=0.0.0.0 PORT=8000 DATABASE_URL=sqlite:/data/qttt.db RUST_LOG=info
VOLUME ["/data"]
EXPOSE 8000
# The binary checks itself, so the image needs no curl.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD ["qttt", "healthcheck"]
ENTRYPOINT ["qttt"]
CMD ["serve"]
