#!/usr/bin/env bash
# Install TorchRig's Linux desktop integration (menu entry, AppStream metadata, icons) and,
# optionally, a PyInstaller build of the app itself.
#
#   packaging/linux/install.sh [--bundle DIR | --exec PROGRAM] PREFIX
#   packaging/linux/install.sh --uninstall PREFIX
#
#   PREFIX          ~/.local for this user, /usr/local for everyone (run as root)
#   --bundle DIR    also copy a one-folder build (dist/torchrig) to PREFIX/lib/torchrig and
#                   link PREFIX/bin/torchrig and PREFIX/bin/torchrig-cli to it
#   --exec PROGRAM  start PROGRAM from the menu (e.g. a venv's bin/torchrig that is not on PATH);
#                   by default the menu entry runs `torchrig` from PATH
#   --uninstall     remove what an install into PREFIX put there
#   DESTDIR=...     stage the files under DESTDIR (distribution packages); caches are not updated
#
# Every file is named after the one application id (io.github.torchrig.TorchRig), which is also
# what the app passes to QGuiApplication.setDesktopFileName, so the desktop shell matches the
# running window to this entry and its icon.
set -euo pipefail

APP_ID="io.github.torchrig.TorchRig"
HERE="$(cd "$(dirname "$0")" && pwd)"
ICON_SIZES=(16 24 32 48 64 128 256 512)

usage() {
    echo "usage:" >&2
    sed -n '5,15p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

die() {
    echo "install.sh: $*" >&2
    exit 2
}

bundle=""
exec_path=""
uninstall=0
while [ $# -gt 0 ]; do
    case "$1" in
        --bundle) [ $# -ge 2 ] || usage; bundle="$2"; shift 2 ;;
        --exec) [ $# -ge 2 ] || usage; exec_path="$2"; shift 2 ;;
        --uninstall) uninstall=1; shift ;;
        -h|--help) usage ;;
        -*) die "unknown option $1" ;;
        *) break ;;
    esac
done
[ $# -eq 1 ] || usage
prefix="$1"
case "$prefix" in
    /*) ;;
    *) die "PREFIX must be an absolute path, got '$prefix'" ;;
esac
[ -z "$bundle" ] || [ -z "$exec_path" ] || die "--bundle and --exec exclude each other"
[ -z "$bundle" ] || exec_path="${prefix%/}/bin/torchrig"
if [ -n "$exec_path" ]; then
    case "$exec_path" in
        /*) ;;
        *) die "--exec needs an absolute path, got '$exec_path'" ;;
    esac
    # The path goes into the Exec key unquoted; refuse what would need desktop-file quoting.
    case "$exec_path" in
        *[[:space:]\"\'\\\`\$%\|]*)
            die "the program path must not contain spaces or quotes: $exec_path" ;;
    esac
fi

root="${DESTDIR:-}${prefix%/}"
share="$root/share"

# Every installed path relative to PREFIX; --uninstall removes exactly these.
files=("share/applications/$APP_ID.desktop" "share/metainfo/$APP_ID.metainfo.xml"
       "share/icons/hicolor/scalable/apps/$APP_ID.svg")
for size in "${ICON_SIZES[@]}"; do
    files+=("share/icons/hicolor/${size}x${size}/apps/$APP_ID.png")
done

refresh_caches() {
    # Only for a live install: with DESTDIR the package manager's triggers do this.
    [ -z "${DESTDIR:-}" ] || return 0
    if command -v gtk-update-icon-cache >/dev/null && [ -f "$share/icons/hicolor/index.theme" ]
    then
        gtk-update-icon-cache --quiet --ignore-theme-index "$share/icons/hicolor" || true
    fi
    if command -v update-desktop-database >/dev/null; then
        update-desktop-database --quiet "$share/applications" || true
    fi
}

if [ "$uninstall" -eq 1 ]; then
    for rel in "${files[@]}"; do
        rm -f "$root/$rel"
    done
    for launcher in torchrig torchrig-cli; do
        # Only our own links into lib/torchrig: a pip-installed torchrig there stays.
        link="$root/bin/$launcher"
        if [ -L "$link" ] && [ "$(readlink "$link")" = "../lib/torchrig/$launcher" ]; then
            rm -f "$link"
        fi
    done
    rm -rf "$root/lib/torchrig"
    refresh_caches
    echo "removed TorchRig from $prefix"
    exit 0
fi

if [ -n "$bundle" ]; then
    if [ ! -x "$bundle/torchrig" ] || [ ! -d "$bundle/_internal" ]; then
        die "$bundle is not a PyInstaller build of TorchRig (expected torchrig and _internal/)"
    fi
    mkdir -p "$root/lib" "$root/bin"
    rm -rf "$root/lib/torchrig"
    cp -a "$bundle" "$root/lib/torchrig"
    for launcher in torchrig torchrig-cli; do
        [ -x "$root/lib/torchrig/$launcher" ] || continue
        # Relative links keep working when DESTDIR staging is moved to /.
        ln -sfn "../lib/torchrig/$launcher" "$root/bin/$launcher"
    done
fi

install -D -m 644 "$HERE/$APP_ID.metainfo.xml" "$share/metainfo/$APP_ID.metainfo.xml"
install -D -m 644 "$HERE/icons/hicolor/scalable/apps/$APP_ID.svg" \
    "$share/icons/hicolor/scalable/apps/$APP_ID.svg"
for size in "${ICON_SIZES[@]}"; do
    rel="icons/hicolor/${size}x${size}/apps/$APP_ID.png"
    install -D -m 644 "$HERE/$rel" "$share/$rel"
done

desktop="$share/applications/$APP_ID.desktop"
mkdir -p "$share/applications"
if [ -n "$exec_path" ]; then
    sed -e "s|^TryExec=.*|TryExec=$exec_path|" -e "s|^Exec=.*|Exec=$exec_path|" \
        "$HERE/$APP_ID.desktop" > "$desktop"
    chmod 644 "$desktop"
else
    install -m 644 "$HERE/$APP_ID.desktop" "$desktop"
fi

refresh_caches
echo "installed TorchRig desktop integration into $prefix"
