"""Operations: what keeps a device honest rather than what plays -- ``tablemate doctor``'s checks
(``doctor/``, with the HX711 word check ``scale_check``) and the service's sandbox tables (the
unit's syscall filter ``syscall_filter``, the syscalls the service makes ``service_syscalls``,
systemd 252's sets ``syscall_sets_252``).

Imports ``core`` (the config, the Pi's layout), ``drivers`` and libraries, never ``runtime``:
the device's health part runs the doctor's self-checks, and ``cli`` runs the doctor.
"""
