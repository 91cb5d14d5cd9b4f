#!/bin/sh
# The checks `python3 dev.py vm` runs inside the booted image (started by systemd.run= from the
# kernel's command line, from the check disk mounted on /mnt). One result a line on the virtio
# port "results" (on raspi3b, which has no virtio, the USB serial adapter tablemate.port= names):
# `ok NAME detail` or `FAIL NAME detail`; `@@ WORD` lines steer the host (`@@ cut`: kill QEMU now,
# the power cut; `@@ done`: all said). Phase 1 or 2 on virt, raspi3b on the BCM2837, from
# tablemate.vmcheck= on the kernel's command line.
set -u
# systemd.run= makes its unit the boot's default target, so multi-user.target (and with it
# tablemate.service and its socket) would never be reached: ask for it as the image's own boot
# does. Then, since systemd.run='s unit holds the boot up until it ends, go on as a transient
# unit of its own.
if [ -z "${TM_DETACHED:-}" ]; then
    systemctl start --no-block multi-user.target
    exec systemd-run --unit=tablemate-vmcheck --no-block --setenv=TM_DETACHED=1 /bin/sh /mnt/guest.sh
fi
PORT=/dev/virtio-ports/results
PHASE=$(sed -n 's/.*tablemate\.vmcheck=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
SERIAL=$(sed -n 's/.*tablemate\.port=\([A-Za-z0-9]*\).*/\1/p' /proc/cmdline)
VENV=/opt/tablemate/venv
TM=$VENV/bin/tablemate
CUT=/var/lib/tablemate
export LC_ALL=C.UTF-8 PYTHONDONTWRITEBYTECODE=1
# systemd.run= starts this early (after sysinit): wait for the port's device node
if [ -n "$SERIAL" ]; then
    PORT=/dev/$SERIAL
    udevadm wait --timeout=600 "$PORT"
    stty -F "$PORT" raw -echo clocal 115200  # no modem lines: an open must not wait for a carrier
else
    modprobe virtio_console 2>/dev/null
fi
i=0
while [ ! -e "$PORT" ] && [ "$i" -lt 600 ]; do
    for dev in /sys/class/virtio-ports/*; do
        [ "$(cat "$dev/name" 2>/dev/null)" = results ] && [ -e "/dev/${dev##*/}" ] && PORT=/dev/${dev##*/}
    done
    i=$((i + 1)); sleep 1
done
exec 3>"$PORT"  # opened once; raspi3b's USB serial adapter puts `!"$(` before a line now and then (checks.py drops it)
say() { printf '%s\n' "$*" >&3; }
ok() { n=$1; shift; say "ok $n $*"; }
fail() { n=$1; shift; say "FAIL $n $*"; }
check() { # check NAME DETAIL-ON-FAIL CONDITION...
    n=$1; d=$2; shift 2
    if "$@" >/tmp/check.out 2>&1; then ok "$n" "$(tail -n 1 /tmp/check.out)"; else fail "$n" "$d: $(tail -n 3 /tmp/check.out | tr '\n' ' ')"; fi
}
prop() { systemctl show -p "$2" --value "$1"; }
mono_us() { awk '{printf "%d", $1 * 1000000}' /proc/uptime; }
wait_active() { # wait_active UNIT SECONDS: asks every 5 s (each systemctl is a process that would
    # take the CPU from the start being timed; the times come from systemd's own stamps)
    i=0
    while [ "$(prop "$1" ActiveState)" != active ]; do
        i=$((i + 5)); [ "$i" -gt "$2" ] && return 1; sleep 5
    done
}
ready_seconds() { # start -> READY of the last start of tablemate.service
    start=$(prop tablemate ExecMainStartTimestampMonotonic); ready=$(prop tablemate ActiveEnterTimestampMonotonic)
    python3 -c "print(f'{($ready - $start) / 1e6:.2f}')"
}
wait_up() { # wait_up SECONDS: until this start of the service says the table is up (READY comes at
    # the start, STATUS=ready and that line when the menu is drawn); prints its seconds from the start
    inv=$(prop tablemate InvocationID); i=0
    until journalctl "_SYSTEMD_INVOCATION_ID=$inv" -o cat --no-pager | grep -q 'the table is up'; do
        i=$((i + 5)); [ "$i" -gt "$1" ] && return 1; sleep 5
    done
    journalctl "_SYSTEMD_INVOCATION_ID=$inv" -o cat --no-pager | sed -n 's/.*the table is up \([0-9.]*\) s.*/\1/p' | tail -n 1
}
restart_ready() { # three restarts of the service once the boot has settled, each followed by a
    # bare import, so both are timed under the same conditions (systemctl restart returns at
    # READY); the medians of each, and of the three "the table is up N s" the service logs
    systemctl is-system-running --wait >/dev/null 2>&1
    : >/tmp/ready.txt; : >/tmp/up.txt; : >/tmp/bare.txt
    for _ in 1 2 3; do
        systemctl restart tablemate && ready_seconds >>/tmp/ready.txt
        wait_up 180 >>/tmp/up.txt
        one_import >>/tmp/bare.txt
    done
    echo "restart=$(sort -n /tmp/ready.txt | sed -n 2p) up=$(sort -n /tmp/up.txt | sed -n 2p) import=$(sort -n /tmp/bare.txt | sed -n 2p)"
}
one_import() { # seconds of one fresh interpreter importing the command line
    python3 -c "import subprocess,time; t=time.monotonic(); subprocess.run(['$VENV/bin/python','-c','import firmware_host.cli.main'],check=True); print(f'{time.monotonic()-t:.2f}')"
}
bare_import() { # median of three fresh interpreters importing the command line
    for _ in 1 2 3; do one_import; done | sort -n | sed -n 2p
}
cat > /var/tmp/get.py <<'PY'
import sys, urllib.request
for url in sys.argv[1:]:
    with urllib.request.urlopen(url, timeout=20) as r:
        print(url, r.status, r.headers.get("Content-Type"))
PY
api_state() { python3 -c "
import json, urllib.request
with urllib.request.urlopen('http://127.0.0.1/api/state', timeout=20) as r: s = json.load(r)
print(json.dumps(s, sort_keys=True)[:4000])"; }
script_part() { # script_part first|rest OUT [GAME SNAP]: a whole game's script cut after the line
    # `snap SNAP` (arschbombe's after two jumps unless told)
    python3 - "$1" "$2" "${3:-arschbombe}" "${4:-02-after-ben}" <<'PY'
import sys
lines = open(f"/var/tmp/src/tests/data/{sys.argv[3]}_game.sim").read().splitlines()
cut = lines.index(f"snap {sys.argv[4]}") + 1
part = lines[:cut] if sys.argv[1] == "first" else [l for l in lines[cut:] if not l.startswith("start ")]
open(sys.argv[2], "w").write("\n".join(part) + "\n")
PY
}
play_whole() { # play_whole GAME: its whole game's script through the installed package, to its end
    game=$1; state=/var/tmp/game-$game
    seed=$(sed -n 's/.*--seed \([0-9]*\).*/\1/p' /var/tmp/src/tests/data/${game}_game.sim | head -n 1)
    if $TM sim --script /var/tmp/src/tests/data/${game}_game.sim --state-dir $state ${seed:+--seed $seed} >/tmp/game.out 2>&1 &&
        python3 -c "import json,sys; [e] = [json.loads(l) for l in open('$state/history.jsonl')]; assert e['game'] == '$game' and e['reason'] in ('over', 'ended'), e; print(e['reason'], e['scores'])" >/tmp/game.res 2>&1; then
        ok "game-$game" "played to the end: $(cat /tmp/game.res)"
    else
        fail "game-$game" "$(tail -n 3 /tmp/game.out /tmp/game.res | tr '\n' ' ')"
    fi
}
as_service() { runuser -u tablemate -- "$@"; }
upgrade_kept() { # upgrade_kept BEFORE: the hook ran and wrote config.txt afresh, the overlays as they
    # were (BEFORE: their hash), each one config.txt names on the card, no dtparam= line
    fw=/boot/firmware
    grep -q '^exit status 0$' /tmp/hook.out || { echo "the hook failed: $(tail -n 2 /tmp/hook.out | tr '\n' ' ')"; return 1; }
    ! grep -q '^# before the upgrade' $fw/config.txt || { echo "config.txt not written again"; return 1; }
    [ "$(cat $fw/overlays/*.dtbo | sha256sum | cut -c1-16)" = "$1" ] || { echo "the overlays changed"; return 1; }
    names=$(sed -n 's/^dtoverlay=\([^,]*\).*/\1/p' $fw/config.txt)
    for o in $names; do [ -f "$fw/overlays/$o.dtbo" ] || { echo "$o.dtbo gone"; return 1; }; done
    grep -q '^enable_uart=0' $fw/config.txt || { echo "enable_uart=0 gone"; return 1; }
    if grep -q '^dtparam=' $fw/config.txt; then echo "a dtparam= line"; return 1; fi
    echo "the hook wrote config.txt again; it loads $(echo $names | tr ' ' ','), each on the card as it was"
}
VOICE_PY='
import asyncio, subprocess, time
from drivers.voice import Voice, wav
from drivers.voice.alsa import AplayPlayer
from drivers.voice.espeak import Espeak
from drivers.voice.speaker import Speaker
TEXT = "Ben verliert zwei Leben. Anna ist dran."
HEARD = "/tmp/heard.raw"  # in the unit of its own /tmp (PrivateTmp)
rec = subprocess.Popen(["arecord", "-q", "-D", "plughw:Loopback,1,0", "-f", "S16_LE", "-r", str(wav.RATE), "-c", "1",
                        "-t", "raw", "-d", "90", HEARD], stderr=subprocess.PIPE)
time.sleep(2)  # the capture first: it sets the format of the loopback
async def main():
    speaker = Speaker(AplayPlayer("plughw:Loopback,0,0"), Espeak(), Voice(language="de"))
    start = time.monotonic()
    u = speaker.say(TEXT)
    outcome = await u.wait()
    took = time.monotonic() - start
    speaker.close()
    await speaker.wait_closed()
    return outcome, u.detail, took
outcome, detail, took = asyncio.run(main())
time.sleep(1)
rec.send_signal(2)  # SIGINT: arecord stops (raw samples: no header to finish)
rec.wait()
assert outcome == "said", (outcome, detail)
data = open(HEARD, "rb").read()
assert data, rec.stderr.read().decode()[-300:]
level = [abs(int.from_bytes(data[i:i + 2], "little", signed=True)) for i in range(0, len(data) - 1, 2)]
loud = [i for i, v in enumerate(level) if v > 1000]
assert loud, f"only silence came through the loopback (peak {max(level, default=0)}, {len(level)} samples)"
span = (loud[-1] - loud[0]) / wav.RATE
assert span > 1.0, f"{span:.2f} s of sound"
rms = (sum(v * v for v in level[loud[0]:loud[-1]]) / (loud[-1] - loud[0])) ** 0.5
print(f"{outcome} in {took:.1f} s (espeak-ng to aplay); arecord heard {span:.2f} s of speech on the loopback "
      f"(peak {max(level)}, rms {rms:.0f})")
'
voice_loopback() { # the voice through a virtual sound card: the product's speaker (eSpeak NG ->
    # aplay) plays a German phrase into snd-aloop's card while arecord captures its other end, in a
    # transient unit with the service's own user, groups and sandbox lines (its system-call filter
    # too: the children inherit it); the capture must hold speech, not silence
    modprobe snd-aloop pcm_substreams=1 2>/tmp/aloop.err || { echo "modprobe snd-aloop: $(cat /tmp/aloop.err)"; return 1; }
    udevadm settle --timeout=60
    grep -q Loopback /proc/asound/card*/id 2>/dev/null || { echo "no Loopback card: $(tr '\n' ' ' </proc/asound/cards)"; return 1; }
    grep -E '^(User|Group|SupplementaryGroups|NoNewPrivileges|CapabilityBoundingSet|AmbientCapabilities|Protect[A-Za-z]+|PrivateTmp|Restrict[A-Za-z]+|LockPersonality|SystemCall[A-Za-z]+|UMask)=' \
        /etc/systemd/system/tablemate.service >/tmp/voice-unit.txt
    set --
    while IFS= read -r line; do set -- "$@" -p "$line"; done </tmp/voice-unit.txt
    lines=$(($# / 2))
    # no --wait or --pipe: both need D-Bus, which the image has not; the unit stays after its end
    # (--remain-after-exit) so its exit status can be read, its output is in the journal
    systemd-run --quiet --remain-after-exit --unit=tablemate-voicecheck "$@" -p Environment=LC_ALL=C.UTF-8 \
        $VENV/bin/python -c "$VOICE_PY" >/tmp/voice.out 2>&1 || { echo "systemd-run: $(tail -n 2 /tmp/voice.out)"; return 1; }
    i=0
    while [ "$(prop tablemate-voicecheck ExecMainExitTimestampMonotonic)" = 0 ] && [ $i -lt 120 ]; do
        sleep 5; i=$((i + 1))
    done
    status=$(prop tablemate-voicecheck ExecMainStatus)
    said=$(journalctl -u tablemate-voicecheck -o cat --no-pager | grep -v -e '^Started ' -e '^Finished ' | tail -n 3 | tr '\n' ' ')
    systemctl stop tablemate-voicecheck 2>/dev/null; systemctl reset-failed tablemate-voicecheck 2>/dev/null
    echo "${said}[exit status $status; the unit's $lines sandbox lines; card: $(grep Loopback /proc/asound/cards | head -n 1 | tr -s ' ')]"
    [ "$status" = 0 ]
}
sources() { # the checkout's tests, copied once (after the start being timed: not beside it)
    if [ ! -d /var/tmp/src ]; then cp -a /mnt/source /var/tmp/src; fi
}

say "@@ phase $PHASE"

if [ "$PHASE" = 1 ]; then
    # -- the service as the image boots it ------------------------------------------------------------
    if wait_active tablemate 600; then
        ok ready "READY under the real unit after $(ready_seconds) s from its start (bare import: $(bare_import) s)"
    else
        fail ready "not active after 600 s: $(journalctl -u tablemate -n 5 --no-pager | tr '\n' ' ')"
    fi
    boot_ready=$(ready_seconds)
    sources
    say "@@ timing ready=$boot_ready $(restart_ready)"
    # where start -> READY goes: the unit's log with monotonic stamps, the slowest imports
    journalctl -u tablemate -b -o short-monotonic --no-pager | tail -n 25 | sed 's/^/@@ journal /' >&3
    # what else the boot ran beside it (the first boot's own work), and when the kernel's random
    # pool was ready (a read of os.urandom blocks until then)
    say "@@ boot start=$(prop tablemate ExecMainStartTimestampMonotonic) $(systemd-analyze 2>&1 | head -n 1)"
    systemd-analyze blame --no-pager 2>&1 | head -n 12 | sed 's/^/@@ blame /' >&3
    dmesg | grep -E 'crng|random:' | head -n 4 | sed 's/^/@@ dmesg /' >&3
    pid=$(prop tablemate MainPID)
    say "@@ cpu utime/stime ticks of the service: $(cut -d' ' -f14,15 /proc/$pid/stat)"
    $VENV/bin/python -X importtime -c "import firmware_host.cli.main, firmware_host.runtime.device" 2>&1 |
        awk -F'|' '{c=$2; gsub(/ /, "", c); print c, $3}' | sort -n | tail -n 25 | sed 's/^/@@ importtime /' >&3
    # the same start again, profiled, in a unit of its own without the sandbox: where the seconds go
    systemd-run --unit=tablemate-profile -p Type=notify -p User=tablemate -p TimeoutStartSec=900 \
        -p SupplementaryGroups=gpio -p Environment=LC_ALL=C.UTF-8 \
        $VENV/bin/python -m cProfile -o /var/tmp/start.prof -m firmware_host run --config /etc/tablemate/config.toml \
        --state-dir /var/tmp/profile-state >/dev/null 2>&1
    say "@@ timing profiled-ready=$(python3 -c "print(f'{($(prop tablemate-profile ActiveEnterTimestampMonotonic) - $(prop tablemate-profile ExecMainStartTimestampMonotonic)) / 1e6:.2f}')") cpu=$(prop tablemate-profile CPUUsageNSec)"
    systemctl stop tablemate-profile
    python3 -c "
import pstats, sys
s = pstats.Stats('/var/tmp/start.prof', stream=sys.stdout)
s.sort_stats('cumulative').print_stats(40)
s.sort_stats('tottime').print_stats(25)" 2>&1 | grep -E '^ +[0-9]' | cut -c1-200 | sed 's/^/@@ profile /' >&3
    pid=$(prop tablemate MainPID)
    seccomp=$(awk '/^Seccomp:/ {print $2}' /proc/$pid/status)
    [ "$seccomp" = 2 ] && ok seccomp "mode 2 (filter) on pid $pid" || fail seccomp "Seccomp: $seccomp"
    caps=$(awk '/^CapEff:/ {print $2}' /proc/$pid/status); bnd=$(awk '/^CapBnd:/ {print $2}' /proc/$pid/status)
    nnp=$(awk '/^NoNewPrivs:/ {print $2}' /proc/$pid/status); user=$(ps -o user= -p "$pid")
    [ "$caps" = 0000000000000000 ] && [ "$bnd" = 0000000000000000 ] && [ "$nnp" = 1 ] &&
        ok capabilities "CapEff and CapBnd 0, NoNewPrivs 1, user $user" || fail capabilities "CapEff $caps CapBnd $bnd NoNewPrivs $nnp"
    listen=$(prop tablemate.socket Listen | tr '\n' ' ')
    check port80 "no answer on port 80" sh -c "python3 /var/tmp/get.py http://127.0.0.1/ 'http://[::1]/' | tr '\n' ' ' && echo 'from $listen'"
    # IPAddressDeny=any with only local ranges allowed: a connection from a public address is dropped by the kernel
    ip link add tmcheck0 type dummy && ip addr add 203.0.113.9/32 dev tmcheck0 && ip link set tmcheck0 up
    check ipaddressdeny "a public source got through" python3 -c "
import socket
s = socket.socket(); s.settimeout(8); s.bind(('203.0.113.9', 0))
try:
    s.connect(('203.0.113.9', 80)); raise SystemExit('connected from 203.0.113.9')
except (TimeoutError, socket.timeout):
    pass
t = socket.create_connection(('127.0.0.1', 80), timeout=8); t.close()
print('203.0.113.9 -> :80 dropped (timed out), 127.0.0.1 -> :80 connects')"
    ip link del tmcheck0

    # -- a whole game of each game, with the installed package ----------------------------------------
    for game in tonne bomb arschbombe antartik trottel; do
        play_whole $game
    done
    check voice "no speech through the loopback" voice_loopback

    # -- the doctor on a board with none of the parts -------------------------------------------------
    $TM doctor >/tmp/doctor.out 2>&1
    failing=$(grep -c ' FAIL ' /tmp/doctor.out); nofix=$(grep ' FAIL ' /tmp/doctor.out | grep -vc ' -- fix: ')
    sed 's/^/@@ doctor: /' /tmp/doctor.out >&3
    if [ "$failing" -gt 0 ] && [ "$nofix" = 0 ] && grep ' FAIL ' /tmp/doctor.out | grep '^pins' | grep -q '\[gpio\] revision' &&
        ! grep '^backends' /tmp/doctor.out | grep -q 'Blinka: *;' && ! grep '^backends' /tmp/doctor.out | grep -q 'Blinka: *$'; then
        ok doctor "$failing parts FAIL, each with its fix; pins names [gpio] revision: $(grep ' FAIL ' /tmp/doctor.out | cut -d' ' -f1 | tr '\n' ' ')"
    else
        fail doctor "$failing FAIL, $nofix without a fix: $(grep -E '^(pins|backends)' /tmp/doctor.out | tr '\n' ' ')"
    fi

    # -- the buttons on QEMU's PL061 through the product's own factory, [gpio] revision given ------
    # The PL061 has 8 lines (line 3 is the power key, held by gpio-keys): seven buttons on the
    # others, through drivers.gpio.pin_factory and drivers.buttons.ButtonPanel as the service opens them.
    check buttons-pl061 "lines not requested through the factory" $VENV/bin/python -c "
import glob, time, gpiod
from drivers.buttons import ButtonPanel
from drivers.gpio import pin_factory
factory, name = pin_factory(revision='a02082')
pins = {'p1': 0, 'p2': 1, 'p3': 2, 'p4': 4, 'p5': 5, 'p6': 6, 'ok': 7}
panel = ButtonPanel(pins, lambda *a: None, time.monotonic, factory, 0.03)
path = next(p for p in sorted(glob.glob('/dev/gpiochip*')) if 'pl061' in gpiod.Chip(p).get_info().label)
chip = gpiod.Chip(path)
used = {o: chip.get_line_info(o).consumer for o in range(chip.get_info().num_lines)}
mine = sorted(o for o, c in used.items() if c == 'tablemate')
pressed = [n for n, b in panel.buttons.items() if b.is_active]
assert mine == sorted(pins.values()) and not panel.missing, (used, panel.missing)
panel.close(); factory.close()
print(f'{name} on {path} ({chip.get_info().label}): lines {mine} requested by tablemate, pulled up, pressed: {pressed or \"none\"}; line 3: {used[3]}')"
    # the doctor with the revision set: every line requested as the service requests it
    sed 's/^revision = "auto".*/revision = "a02082"/' /etc/tablemate/config.toml > /var/tmp/config-pl061.toml
    $TM doctor --config /var/tmp/config-pl061.toml > /tmp/doctor2.out 2>&1
    grep '^pins' /tmp/doctor2.out | sed 's/^/@@ doctor with [gpio] revision: /' >&3

    # -- the watchdog: 3 minutes after READY, fed, never restarted -------------------------------------
    up=$(prop tablemate ActiveEnterTimestampMonotonic)
    while [ $(( $(mono_us) - up )) -lt 180000000 ]; do sleep 5; done
    restarts=$(prop tablemate NRestarts); wd=$(prop tablemate WatchdogUSec)
    [ "$restarts" = 0 ] && [ "$(prop tablemate ActiveState)" = active ] &&
        ok watchdog "WatchdogSec=$wd, $(( ($(mono_us) - up) / 1000000 )) s since READY, 0 restarts" ||
        fail watchdog "NRestarts=$restarts state $(prop tablemate ActiveState)"

    # -- a game the real service is in, then the power cut ---------------------------------------------
    script_part first /var/tmp/first.sim
    systemctl stop tablemate
    as_service $TM sim --script /var/tmp/first.sim --state-dir $CUT >/tmp/first.out 2>&1
    systemctl start tablemate && wait_active tablemate 600 && wait_up 600 >/dev/null
    api_state > /tmp/api1.json 2>&1
    say "@@ api before the cut: $(head -c 300 /tmp/api1.json)"
    as_service $TM state --state-dir $CUT > /var/tmp/state-before.json 2>&1
    cp /var/tmp/state-before.json /var/lib/state-before.json
    sync -f /var/lib/state-before.json  # the check's own note of what the journal held (not the journal's)
    say "@@ cut"
    sleep 3600
fi

if [ "$PHASE" = raspi3b ]; then
    # -- the image on the Pi 3B's BCM2837, with the device tree the firmware would hand over --------
    say "@@ uptime $(cut -d' ' -f1 /proc/uptime) s at the checks' start; $(uname -r); model: $(tr -d '\0' </proc/device-tree/model)"
    if wait_active tablemate 900; then
        ok ready "READY under the real unit after $(ready_seconds) s from its start, $(cut -d' ' -f1 /proc/uptime) s after power-on"
    else
        fail ready "not active after 900 s: $(journalctl -u tablemate -n 5 --no-pager | tr '\n' ' ')"
    fi
    sources
    dmesg | grep -iE 'spi|i2c|dwc2|pinctrl|ttyS|serial|mmc0|hx711' | head -n 40 | sed 's/^/@@ dmesg /' >&3
    dmesg | grep -B 14 -A 30 'Modules linked in' | head -n 150 | sed 's/^/@@ kernel /' >&3  # a warning or oops, whole
    check gpiochip "no pinctrl-bcm2835 chip of 54 lines" $VENV/bin/python -c "
import glob, gpiod
chips = {p: gpiod.Chip(p).get_info() for p in sorted(glob.glob('/dev/gpiochip*'))}
[(path, info)] = [(p, i) for p, i in chips.items() if i.label == 'pinctrl-bcm2835']
assert info.num_lines == 54, info
print(f'{path}: {info.label}, {info.num_lines} lines (chips: {\", \".join(i.label for i in chips.values())})')"
    # the buttons through the product's own pin factory, in the running service, [gpio] revision
    # as installed ("auto": the revision the firmware's tree gives)
    check buttons-bcm2835 "the service does not hold every button's line" $VENV/bin/python -c "
import glob, gpiod
from firmware_host.core.config import BUTTONS, load
config = load('/etc/tablemate/config.toml')
pins = {b: config['buttons'][b] for b in BUTTONS}
path = next(p for p in sorted(glob.glob('/dev/gpiochip*')) if gpiod.Chip(p).get_info().label == 'pinctrl-bcm2835')
chip = gpiod.Chip(path)
info = {b: chip.get_line_info(o) for b, o in pins.items()}
held = {b: i.consumer for b, i in info.items()}
assert config['gpio']['revision'] == 'auto' and set(held.values()) == {'tablemate'}, held
assert all(i.bias == gpiod.line.Bias.PULL_UP for i in info.values()), {b: i.bias for b, i in info.items()}
revision = open('/proc/device-tree/system/linux,revision', 'rb').read().hex()
lines = ', '.join(f'{b} {o}' for b, o in pins.items())
print(f'all {len(pins)} lines ({lines}) held by the service, pulled up, on {path}; [gpio] revision = auto, the tree says {revision}')"
    check spidev "no /dev/spidev1.0 on SPI1" sh -c '
        [ -c /dev/spidev1.0 ] || exit 1
        node=$(readlink -f /sys/class/spidev/spidev1.0/device/of_node); drv=$(basename "$(readlink -f /sys/class/spidev/spidev1.0/device/driver)")
        case "$node" in */spi@7e215080/spidev@0) ;; *) echo "of_node $node"; exit 1 ;; esac
        echo "/dev/spidev1.0: ${node#/sys/firmware/devicetree/base}, driver $drv, $(tr -d "\0" < "$node/compatible"), $(od -An -tu4 --endian=big "$node/spi-max-frequency" | tr -d " ") Hz"'
    check i2c "no /dev/i2c-1 at 400 kHz" sh -c '
        [ -c /dev/i2c-1 ] || { echo "no /dev/i2c-1"; exit 1; }
        node=$(readlink -f /sys/class/i2c-adapter/i2c-1/of_node); hz=$(od -An -tu4 --endian=big "$node/clock-frequency" | tr -d " ")
        case "$node" in */i2c@7e804000) ;; *) echo "i2c-1 is $node"; exit 1 ;; esac
        [ "$hz" = 400000 ] || { echo "$hz Hz"; exit 1; }
        echo "/dev/i2c-1: ${node#/sys/firmware/devicetree/base}, clock-frequency $hz Hz, $(cat /sys/class/i2c-adapter/i2c-1/name)"'
    check uart-off "the mini UART is on" sh -c '
        status=$(tr -d "\0" < /proc/device-tree/soc/serial@7e215040/status)
        [ "$status" = disabled ] || { echo "serial@7e215040 $status"; exit 1; }
        for t in /sys/class/tty/ttyS*; do case "$(readlink -f "$t/device/of_node" 2>/dev/null)" in *serial@7e215040) echo "$t is the mini UART"; exit 1 ;; esac; done
        echo "serial@7e215040 $status, no ttyS on it; consoles: $(cat /sys/class/tty/console/active)"'
    # -- the doctor on the Pi's SoC with no panel and no HX711: beside the running service (which
    # holds the buttons and the scale), then with the service stopped (the parts tried for real) --
    $TM doctor >/tmp/doctor-running.out 2>&1
    sed 's/^/@@ doctor, the service running: /' /tmp/doctor-running.out >&3
    systemctl stop tablemate
    $TM doctor >/tmp/doctor.out 2>&1
    sed 's/^/@@ doctor, the service stopped: /' /tmp/doctor.out >&3
    systemctl start tablemate
    part() { grep "^$1 " /tmp/doctor.out; }
    nofix=$(grep ' FAIL ' /tmp/doctor.out | grep -vc ' -- fix: ')
    bad=$(grep -E '^(gpio|backends|pins|uart|i2c speed|reboot) +FAIL' /tmp/doctor.out /tmp/doctor-running.out | cut -d: -f2 | cut -c1-9 | tr -s ' \n' ' ')
    held=$(grep -E '^pins +(ok|skip)' /tmp/doctor-running.out | grep -cE ' ok |held by the running service')
    # the causes this board has: no panel answers on I2C1; SPI1 opens but the emulated controller
    # completes no transfer (on a Pi without an HX711 the transfer completes: DOUT never falls)
    if part display | grep -q ' FAIL  nothing answers at 0x3C on /dev/i2c-1 -- fix: check the panel' &&
        part scale | grep -q ' FAIL .*/dev/spidev1.0 opened, but a transfer failed: .* -- fix: `dmesg' &&
        [ "$nofix" = 0 ] && [ -z "$bad" ] && [ "$held" = 1 ]; then
        ok doctor "the board's lines ok (pins beside the service: $(grep '^pins' /tmp/doctor-running.out | cut -c11-70)); $(part display | cut -c11-200) / $(part scale | cut -c11-240)"
    else
        fail doctor "$nofix FAIL without a fix; board lines failing: ${bad:-none}; pins beside the service: $(grep '^pins' /tmp/doctor-running.out | cut -c1-120); $(part display | cut -c1-160) / $(part scale | cut -c1-200)"
    fi
    play_whole tonne
    check voice "no speech through the loopback" voice_loopback
    # -- a game in the real service, its scale missing: the first half by script, the service
    # resumes it on this board's hardware, the rest by script ends it as the whole game ended ------
    script_part first /var/tmp/first.sim tonne 024-menu
    script_part rest /var/tmp/rest.sim tonne 024-menu
    systemctl stop tablemate
    as_service $TM sim --script /var/tmp/first.sim --state-dir $CUT --seed 5 >/tmp/first.out 2>&1
    systemctl start tablemate && wait_active tablemate 600 && wait_up 600 >/dev/null
    inv=$(prop tablemate InvocationID)
    journalctl "_SYSTEMD_INVOCATION_ID=$inv" -o cat --no-pager | tail -n 30 | sed 's/^/@@ service: /' >&3
    api_state > /tmp/api.json 2>&1
    journalctl "_SYSTEMD_INVOCATION_ID=$inv" -o cat --no-pager | grep -i 'scale' | head -n 1 > /tmp/scale-said.txt
    systemctl stop tablemate
    as_service $TM sim --script /var/tmp/rest.sim --state-dir $CUT >/tmp/rest.out 2>&1
    check resume-no-scale "the game did not go on in the service" python3 -c "
import json
api = open('/tmp/api.json').read()
assert 'tonne' in api, api[:300]
[whole] = [json.loads(l) for l in open('/var/tmp/game-tonne/history.jsonl')]
[cut] = [json.loads(l) for l in open('$CUT/history.jsonl')]
assert (cut['scores'], cut['reason']) == (whole['scores'], whole['reason']), (cut, whole)
said = open('/tmp/scale-said.txt').read().strip()
assert said, 'the service said nothing of its scale'
print(f'tonne resumed by the service on the BCM2837 (it said: {said[:160]}), ended as the whole game:', cut['reason'], cut['scores'])"
    # -- what every kernel or firmware upgrade runs: raspi-firmware's hook writes config.txt again
    # and copies the trees; the image's overlays and its lines must come through ------------------
    # (a line added to config.txt first: the hook starts the file afresh, so the line must be gone)
    before=$(cat /boot/firmware/overlays/*.dtbo | sha256sum | cut -c1-16)
    echo "# before the upgrade" >> /boot/firmware/config.txt
    DEB_MAINT_PARAMS=configure sh /etc/kernel/postinst.d/z50-raspi-firmware >/tmp/hook.out 2>&1
    echo "exit status $?" >> /tmp/hook.out
    sed 's/^/@@ hook: /' /tmp/hook.out >&3
    check upgrade-keeps "raspi-firmware's hook lost the image's device tree" upgrade_kept "$before"
    say "@@ done"
    systemctl poweroff
fi

if [ "$PHASE" = 2 ]; then
    if wait_active tablemate 600 && up=$(wait_up 600); then
        ok ready-after-cut "the service came back after the power cut, READY after $(ready_seconds) s, the table up after $up s"
    else
        fail ready-after-cut "not active after 600 s"
    fi
    sources
    api_state > /tmp/api2.json 2>&1
    as_service $TM state --state-dir $CUT > /tmp/state-after.json 2>&1
    check power-cut "the game before the cut is not the game after it" python3 -c "
import json
before = json.load(open('/var/lib/state-before.json')); after = json.load(open('/tmp/state-after.json'))
assert before['summary']['game'] == after['summary']['game'] == 'arschbombe', (before, after)
assert after['summary']['jumps'] == before['summary']['jumps'] == {'Ann': 1, 'Ben': 1}, after['summary']
api = open('/tmp/api2.json').read()
assert 'arschbombe' in api, api[:300]
print('arschbombe resumed by the service after QEMU was killed: jumps', after['summary']['jumps'])"
    script_part rest /var/tmp/rest.sim
    $TM sim --script /var/tmp/src/tests/data/arschbombe_game.sim --state-dir /var/tmp/whole >/dev/null 2>&1
    systemctl stop tablemate
    as_service $TM sim --script /var/tmp/rest.sim --state-dir $CUT >/tmp/rest.out 2>&1
    check power-cut-ends "the resumed game ended otherwise" python3 -c "
import json
[whole] = [json.loads(l) for l in open('/var/tmp/whole/history.jsonl')]
[cut] = [json.loads(l) for l in open('$CUT/history.jsonl')]
assert (cut['scores'], cut['winners'], cut['reason']) == (whole['scores'], whole['winners'], whole['reason']), (cut, whole)
print('ended as the uninterrupted game:', cut['reason'], cut['scores'])"

    # -- the offline install from scratch on this Debian 12 arm64 (no python3-lgpio), no network ------
    dpkg -s python3-lgpio >/dev/null 2>&1 && lg=present || lg=absent
    sh /opt/tablemate/source/systemd/install.sh --uninstall --purge >/tmp/uninstall.out 2>&1
    if sh /mnt/source/systemd/install.sh --wheelhouse /mnt/wheelhouse >/tmp/install.out 2>&1 && wait_active tablemate 600; then
        ok offline-install "python3-lgpio $lg, no network: install.sh --wheelhouse installed and started it ($(grep -c . /tmp/install.out) steps; lgpio $($VENV/bin/python -c 'import lgpio, os; print(os.path.basename(os.path.dirname(lgpio.__file__)) or lgpio.__file__)' 2>&1))"
    else
        fail offline-install "$(tail -n 3 /tmp/install.out | tr '\n' ' ')"
    fi
    # -- the unit's seccomp filter with the kill action, on this kernel --------------------------------
    python3 -m venv --system-site-packages /var/tmp/tv >/dev/null
    /var/tmp/tv/bin/pip install -q --no-index --find-links /mnt/wheelhouse --no-deps \
        -r /mnt/wheelhouse/requirements-cp311-aarch64.txt >/tmp/pip.out 2>&1
    # the test tools with whatever they need (pytest 8 needs pygments too), from their own folder
    /var/tmp/tv/bin/pip install -q --no-index --find-links /mnt/testwheels pytest pyseccomp >>/tmp/pip.out 2>&1
    (cd /var/tmp/src && /var/tmp/tv/bin/python -m pytest -q -p no:cacheprovider tests/ops/test_sandbox.py) >/tmp/sandbox.out 2>&1
    res=$?; summary=$(tail -n 1 /tmp/sandbox.out)
    [ "$res" = 0 ] && ok sandbox-test "tests/ops/test_sandbox.py with the kill action: $summary" ||
        fail sandbox-test "$(grep -E 'FAILED|Error' /tmp/sandbox.out | head -n 3 | tr '\n' ' ') $summary"
    # -- the page's socket filter (the kernel dropping a refused address's SYNs) on this kernel --------
    (cd /var/tmp/src && /var/tmp/tv/bin/python -m pytest -q -p no:cacheprovider tests/web/test_web_syn_filter.py) >/tmp/syn.out 2>&1
    res=$?; summary=$(tail -n 1 /tmp/syn.out)
    [ "$res" = 0 ] && ok syn-filter "tests/web/test_web_syn_filter.py on the arm64 kernel: $summary" ||
        fail syn-filter "$(grep -E 'FAILED|Error' /tmp/syn.out | head -n 3 | tr '\n' ' ') $summary"
    if grep -q 'tablemate.derive=1' /proc/cmdline; then
        dpkg -i /mnt/debs/*.deb >/tmp/dpkg.out 2>&1 || say "@@ derive: dpkg -i failed: $(tail -n 3 /tmp/dpkg.out | tr '\n' ' ')"
        (cd /var/tmp/src && /var/tmp/tv/bin/python -m tests.sandboxkit derive) >/tmp/derive.out 2>&1
        grep '^calls ' /tmp/derive.out | sed 's/^/@@ /' >&3
        grep -q '^calls ' /tmp/derive.out || tail -n 8 /tmp/derive.out | sed 's/^/@@ derive: /' >&3
        check syscalls-aarch64 "derive failed" sh -c "grep '^calls aarch64' /tmp/derive.out >/dev/null && grep 'calls of' /tmp/derive.out"
    fi

    say "@@ timing ready2=$(ready_seconds)"
    say "@@ done"
    systemctl poweroff
fi
