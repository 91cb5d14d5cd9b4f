#!/bin/sh
# Install tablemate on a Raspberry Pi (Raspberry Pi OS Bookworm or Bullseye), from this checkout:
#
#     sudo systemd/install.sh              # install or update; safe to run again
#     sudo systemd/install.sh --uninstall  # stop and remove the service (keeps config and history)
#     sudo systemd/install.sh --uninstall --purge   # remove everything, history included
#
# Makes /opt/tablemate/venv (seeing the system's python3-lgpio), installs the package into it,
# then `tablemate install` does the rest: user, groups, config, I2C, unit, service.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
VENV=/opt/tablemate/venv
[ "$(id -u)" = 0 ] || exec sudo "$0" "$@"

case "${1:-}" in
--uninstall)
    if [ -x "$VENV/bin/tablemate" ]; then
        "$VENV/bin/tablemate" install --source "$SRC" "$@"
    fi
    case " $* " in *" --purge "*) rm -rf /opt/tablemate ;; esac
    exit 0
    ;;
esac

if command -v apt-get >/dev/null 2>&1; then
    missing=""
    for pkg in python3-venv python3-dev i2c-tools python3-lgpio; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
    done
    if [ -n "$missing" ]; then
        apt-get update
        # python3-lgpio is not packaged on old releases: then pip's lgpio/RPi.GPIO is used.
        apt-get install -y $missing || apt-get install -y python3-venv python3-dev i2c-tools
    fi
fi

[ -x "$VENV/bin/python" ] || python3 -m venv --system-site-packages "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
if "$VENV/bin/python" -c "import lgpio" 2>/dev/null; then
    "$VENV/bin/python" -m pip install --quiet --upgrade "$SRC"
elif grep -q bookworm /etc/os-release 2>/dev/null; then
    "$VENV/bin/python" -m pip install --quiet --upgrade "$SRC[pi]"
else
    "$VENV/bin/python" -m pip install --quiet --upgrade "$SRC[pi-legacy]"
fi
exec "$VENV/bin/tablemate" install --source "$SRC"
