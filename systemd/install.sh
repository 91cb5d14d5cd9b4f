#!/bin/sh
# Install tablemate on a Raspberry Pi (Raspberry Pi OS Bookworm or newer: Python 3.11+), from this checkout:
#
#     sudo systemd/install.sh              # install or update; safe to run again
#     sudo systemd/install.sh --uninstall  # stop and remove the service (keeps config and history)
#     sudo systemd/install.sh --uninstall --purge   # remove everything, history included
#
# Makes /opt/tablemate/venv (seeing the system's python3-lgpio), installs the package with its
# `pi` extra into it -- gpiod (libgpiod v2, Blinka's pins: the HX711), Adafruit-Blinka, lgpio
# (gpiozero's back end) -- then `tablemate install` does the rest: user, groups, config, I2C at
# 400 kHz, SPI for a panel on SPI, unit, service. `tablemate doctor` then checks every part as the service sees it.
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
    # python3-lgpio: gpiozero's back end, from the Raspberry Pi OS archive (pip's lgpio is the
    # fallback); gcc and python3-dev build gpiod where no wheel exists for this Pi (armv6l/armv7l).
    missing=""
    for pkg in python3-venv python3-dev gcc i2c-tools python3-lgpio python3-spidev; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
    done
    if [ -n "$missing" ]; then
        apt-get update
        apt-get install -y $missing || apt-get install -y python3-venv python3-dev gcc i2c-tools
    fi
fi

[ -x "$VENV/bin/python" ] || python3 -m venv --system-site-packages "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
# Every GPIO library the back ends need: the `pi` extra (gpiod, Adafruit-Blinka, lgpio).
# pip's RECORD lists a hash of every installed file: when it changes, the code did, and a running
# service must be restarted to run it (`tablemate install` does so when told).
installed() { cat "$VENV"/lib/python3*/site-packages/tablemate-*.dist-info/RECORD 2>/dev/null | cksum; }
before=$(installed)
"$VENV/bin/python" -m pip install --quiet --upgrade "$SRC[pi]"
if [ "$(installed)" != "$before" ]; then
    export TABLEMATE_CODE_CHANGED=1
fi
exec "$VENV/bin/tablemate" install --source "$SRC"
