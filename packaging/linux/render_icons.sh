#!/usr/bin/env bash
# Regenerate the hicolor PNG icons from the SVG sources in resources/icons/.
#
# The PNGs are committed so that building and installing need no SVG renderer; run this after
# editing an SVG. Needs rsvg-convert (Debian/Ubuntu: librsvg2-bin).
# 16-32 px come from torchrig-small.svg, a pixel-aligned simplification: the full design's
# pins and thin outline blur into grey at those sizes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/../../resources/icons"
out="$here/icons/hicolor"
app_id="io.github.torchrig.TorchRig"

command -v rsvg-convert >/dev/null || {
    echo "render_icons.sh: rsvg-convert not found (Debian/Ubuntu: apt-get install librsvg2-bin)" >&2
    exit 1
}
for size in 16 24 32 48 64 128 256 512; do
    if [ "$size" -le 32 ]; then svg="$src/torchrig-small.svg"; else svg="$src/torchrig.svg"; fi
    mkdir -p "$out/${size}x${size}/apps"
    rsvg-convert --width "$size" --height "$size" "$svg" -o "$out/${size}x${size}/apps/$app_id.png"
done
mkdir -p "$out/scalable/apps"
cp "$src/torchrig.svg" "$out/scalable/apps/$app_id.svg"
