/*
 * The CPU a probe fires on: cpuinfo_t, which the built-in curcpu points at, and the chip and
 * lgrp built-ins read from it. The Linux bridge fills one cpuinfo_t per CPU when it loads the
 * program, from this machine's topology: cpu_chip is the physical package, cpu_lgrp the NUMA
 * node, cpu_pset 0 (Linux has no processor sets), pi_processor_type the machine name (uname -m)
 * and pi_clock the clock in MHz. (psetid_t is declared by procfs.d, loaded before this file.)
 */

typedef id_t chipid_t;
typedef id_t lgrp_id_t;

typedef struct {
	int pi_state;
	char pi_processor_type[16];
	char pi_fputypes[32];
	int pi_clock;
} processor_info_t;

typedef struct cpuinfo {
	processorid_t cpu_id;
	psetid_t cpu_pset;
	chipid_t cpu_chip;
	lgrp_id_t cpu_lgrp;
	processor_info_t cpu_info;
} cpuinfo_t;

/* pi_state: the CPU is off-line or on-line. */
inline int P_OFFLINE = 1;
inline int P_ONLINE = 2;

inline chipid_t chip = curcpu->cpu_chip;
inline lgrp_id_t lgrp = curcpu->cpu_lgrp;
