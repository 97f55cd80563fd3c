#!/usr/bin/env bash
# Build a release benchtop here (CPU machine) to carry to the GPU machine: build-gpu/ with
# libcjson.so.1 copied beside the binary (the GPU machine has no cJSON; the binary's rpath
# starts with $ORIGIN). Then, on the GPU machine: bash tests/gpu/run-gpu-suite.sh LOGDIR
set -eu
cd "$(dirname "$0")/.."
[ -d build-gpu ] || meson setup build-gpu --buildtype=debugoptimized > /dev/null
ninja -C build-gpu
lib=$(ldconfig -p | awk '/libcjson.so.1 /{print $NF; exit}')
cp -L "$lib" build-gpu/libcjson.so.1
# Bundles load libarchive when used (cmd/bundle_archive.c): carried the same way, in case the GPU
# machine has none (if a library it needs is missing there, only bundles say so).
lib=$(ldconfig -p | awk '/libarchive.so.13 /{print $NF; exit}')
if [ -n "$lib" ]; then cp -L "$lib" build-gpu/libarchive.so.13; else echo "no libarchive.so.13 here: bundles unavailable there"; fi
echo "build-gpu ready ($(du -sh build-gpu | cut -f1)); carry it with the device call"
