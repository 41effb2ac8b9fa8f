#!/bin/sh
# A linker for a build whose functions lie in a shuffled order (rust-lld's --shuffle-sections,
# seeded by SHUFFLE_SEED): the same code, another layout. The path is rustup's 1.95.0 toolchain.
#   SHUFFLE_SEED=1 CARGO_TARGET_DIR=/tmp/shuf RUSTFLAGS="-C linker=$PWD/docs/evidence/host-state-trial/ld-shuffle.sh" \
#     cargo build --release --locked
# (touch src/main.rs before building the next seed: only the link changes.)
exec cc -fuse-ld=lld -B"$HOME"/.rustup/toolchains/1.95.0-x86_64-unknown-linux-gnu/lib/rustlib/x86_64-unknown-linux-gnu/bin/gcc-ld "-Wl,--shuffle-sections=*=${SHUFFLE_SEED:-0}" "$@"
