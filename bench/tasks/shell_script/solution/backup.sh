#!/bin/bash
# backup.sh SRC DEST — copy every file of SRC into DEST (made when missing).
set -euo pipefail
src=$1
dest=$2
mkdir -p "$dest"
for f in "$src"/*; do
  cp "$f" "$dest/"
done
echo "backed up $(ls "$dest" | wc -l) files"
