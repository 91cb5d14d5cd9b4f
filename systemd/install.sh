#!/bin/sh
# Install tablemate on a Raspberry Pi (Raspberry Pi OS Bookworm or newer: Python 3.11+), from this checkout:
#
#     sudo systemd/install.sh                      # install or update from the network; safe to run again
#     sudo systemd/install.sh --wheelhouse DIR     # the same with no network at all (see below)
#     sudo systemd/install.sh --uninstall          # stop and remove the service (keeps config and history)
#     sudo systemd/install.sh --uninstall --purge  # remove everything, history included
#
# Makes /opt/tablemate/venv (seeing the system's python3-spidev), installs the package with its
# `pi` extra into it -- gpiod (libgpiod v2: the buttons' pin factory, Blinka's pins: the HX711),
# Adafruit-Blinka, lgpio (rpi-lgpio's back end: an SPI panel's DC and RES lines; gpiozero's
# fallback where gpiod is missing) -- then `tablemate install` does the rest: user, groups, udev rule, config,
# I2C at 400 kHz, SPI for a panel on SPI, SPI1's overlay for the HX711 on SPI, unit, service; it
# says when the Pi must reboot. The voice's espeak-ng and alsa-utils come from apt (no network: if
# apt has them already).
# `tablemate doctor` then checks every part as the service sees it.
#
# With no network: on any machine with network, `tablemate wheelhouse DIR` fills DIR with the
# project's wheel and a binary wheel of every dependency for the Pi (and a requirements file per
# Python); carry DIR over (a USB stick) and pass --wheelhouse DIR. pip then runs with --no-index:
# it reads nothing but DIR, upgrades nothing of its own and builds nothing. lgpio comes from the
# wheelhouse where PyPI has a wheel of it (CPython 3.11 on aarch64: Bookworm, Raspberry Pi OS's or
# plain Debian's, which has no python3-lgpio), else from apt's python3-lgpio (Raspberry Pi OS's
# archive: CPython 3.13, 32-bit Pis); pip never builds it.
#
# --root DIR installs under DIR instead of / (tests: no apt, the system's commands as found on PATH).
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
ROOT=""
WHEELHOUSE=""
PYTHON=${PYTHON:-python3}
# Our own options; the rest goes to `tablemate install`.
n=$#
while [ "$n" -gt 0 ]; do
    n=$((n - 1))
    arg=$1
    shift
    case "$arg" in
    --wheelhouse) WHEELHOUSE=$(cd "$1" && pwd); shift; n=$((n - 1)) ;;
    --wheelhouse=*) WHEELHOUSE=$(cd "${arg#*=}" && pwd) ;;
    --root) ROOT=${1%/}; shift; n=$((n - 1)) ;;
    --root=*) ROOT=${arg#*=}; ROOT=${ROOT%/} ;;
    *) set -- "$@" "$arg" ;;
    esac
done
VENV=$ROOT/opt/tablemate/venv
if [ -z "$ROOT" ] && [ "$(id -u)" != 0 ]; then
    exec sudo "$0" ${WHEELHOUSE:+--wheelhouse "$WHEELHOUSE"} "$@"
fi
if [ -n "$ROOT" ]; then set -- --root "$ROOT" "$@"; fi

case " $* " in
*" --uninstall "*)
    if [ -x "$VENV/bin/tablemate" ]; then
        "$VENV/bin/tablemate" install --source "$SRC" "$@"
    fi
    case " $* " in *" --purge "*) rm -rf "$ROOT/opt/tablemate" ;; esac
    exit 0
    ;;
esac

on_pi() { case "$(uname -m)" in aarch64 | armv7l | armv6l) return 0 ;; esac; return 1; }

if [ -n "$WHEELHOUSE" ]; then
    # The wheelhouse's lock for this Python and machine, and the project's wheel.
    tag=$("$PYTHON" -c 'import platform, sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}-{platform.machine()}")')
    lock="$WHEELHOUSE/requirements-$tag.txt"
    if [ ! -f "$lock" ]; then
        echo "install.sh: $WHEELHOUSE has no requirements-$tag.txt: make it for this Pi's Python" >&2
        echo "  (tablemate wheelhouse DIR --python X.Y:MACHINE)" >&2
        exit 1
    fi
    wheel=$(ls "$WHEELHOUSE"/tablemate-*.whl 2>/dev/null | sort -V | tail -n 1)
    if [ -z "$wheel" ]; then
        echo "install.sh: $WHEELHOUSE has no tablemate-*.whl (tablemate wheelhouse DIR makes it)" >&2
        exit 1
    fi
fi
# lgpio from apt only where no wheel brings it: the wheelhouse's lock names no lgpio but rpi-lgpio
# (which needs it), or from the network on a Pi with no wheel of it on PyPI (32-bit, CPython 3.13).
lgpio_from_apt() {
    if [ -n "$WHEELHOUSE" ]; then
        grep -qi '^rpi-lgpio==' "$lock" && ! grep -qi '^lgpio==' "$lock"
    else
        on_pi && [ "$(uname -m)-$("$PYTHON" -c 'import sys; print(sys.version_info[:2])')" != "aarch64-(3, 11)" ]
    fi
}

if [ -z "$ROOT" ] && command -v apt-get >/dev/null 2>&1; then
    # From the network only, gcc and python3-dev build gpiod where no wheel exists (armv6l/armv7l).
    want="python3-venv i2c-tools python3-spidev"
    if lgpio_from_apt && ! "$PYTHON" -c "import lgpio" 2>/dev/null; then want="$want python3-lgpio"; fi
    [ -n "$WHEELHOUSE" ] || want="$want python3-dev gcc"
    missing=""
    unknown=""
    for pkg in $want; do
        dpkg -s "$pkg" >/dev/null 2>&1 && continue
        # A package this system's apt has never heard of is not a network problem: say which archive has it.
        if apt-cache show "$pkg" >/dev/null 2>&1; then missing="$missing $pkg"; else unknown="$unknown $pkg"; fi
    done
    if [ -n "$unknown" ]; then
        echo "install.sh: this system's apt archives have no$unknown (python3-lgpio is in Raspberry Pi OS's" >&2
        echo "  archive only; on plain Debian make the wheelhouse with lgpio's wheel: tablemate wheelhouse DIR)" >&2
        exit 1
    fi
    if [ -n "$missing" ]; then
        if [ -n "$WHEELHOUSE" ]; then
            apt-get install -y --no-download $missing || {
                echo "install.sh: apt has$missing in its archive but not on this machine, and there is no network:" >&2
                echo "  put their .deb files on the stick and run: sudo apt-get install ./*.deb" >&2
                exit 1
            }
        else
            apt-get update
            apt-get install -y $missing
        fi
    fi
    # The voice's engine and player (Debian's espeak-ng and alsa-utils, in main everywhere). The
    # voice is optional: with no network and no copy of them, the install goes on and the voice
    # prints what it would say.
    voice=""
    for pkg in espeak-ng alsa-utils; do
        dpkg -s "$pkg" >/dev/null 2>&1 || voice="$voice $pkg"
    done
    if [ -n "$voice" ]; then
        if [ -n "$WHEELHOUSE" ]; then
            apt-get install -y --no-download $voice || {
                echo "install.sh: no$voice on this machine and no network: the voice will print what it would say" >&2
                echo "  (to hear it: put their .deb files on the stick and run: sudo apt-get install ./*.deb)" >&2
            }
        else
            apt-get install -y $voice || { apt-get update && apt-get install -y $voice; }
        fi
    fi
fi
if lgpio_from_apt && ! "$PYTHON" -c "import lgpio" 2>/dev/null; then
    echo "install.sh: lgpio is missing: no wheel of it ${WHEELHOUSE:+in $WHEELHOUSE }for this Python and machine," >&2
    echo "  and the system's python3-lgpio is not installed (sudo apt-get install python3-lgpio on Raspberry Pi OS)" >&2
    exit 1
fi

# --system-site-packages: the venv sees apt's spidev (and lgpio where it is apt's). venv brings its own pip (ensurepip, no network),
# which is never upgraded here: an update of pip is not what a table needs, and offline it cannot be.
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv --system-site-packages "$VENV"
export PIP_DISABLE_PIP_VERSION_CHECK=1
# pip's RECORD lists a hash of every installed file: when it changes, the code did, and a running
# service must be restarted to run it (`tablemate install` does so when told).
installed() { cat "$VENV"/lib/python3*/site-packages/tablemate-*.dist-info/RECORD 2>/dev/null | cksum; }
before=$(installed)
if [ -n "$WHEELHOUSE" ]; then
    # Exactly the versions the wheelhouse locked, each from its wheel: nothing resolved, nothing built.
    "$VENV/bin/python" -m pip install --quiet --no-index --find-links "$WHEELHOUSE" --only-binary=:all: --no-deps -r "$lock"
    # The project's wheel every time: an update keeps its version number, and its files say what changed.
    "$VENV/bin/python" -m pip install --quiet --no-index --no-deps --force-reinstall "$wheel"
else
    # Every GPIO library the back ends need: the `pi` extra (gpiod, Adafruit-Blinka, lgpio).
    # --only-binary=lgpio: apt's lgpio or a wheel, never a build from source.
    "$VENV/bin/python" -m pip install --quiet --only-binary=lgpio --upgrade "$SRC[pi]"
fi
if [ "$(installed)" != "$before" ]; then
    export TABLEMATE_CODE_CHANGED=1
fi
exec "$VENV/bin/tablemate" install --source "$SRC" "$@"
