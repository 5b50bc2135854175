// For reproducers whose libfabric call may crash: the signal is reported as a DEVIATION line naming the library and
// offset of the faulting instruction, so a crash reads like any other verdict. Include after repro.h, with
// _GNU_SOURCE defined before any header (REG_RIP, dladdr).
#ifndef CRASH_REPORT_H
#define CRASH_REPORT_H
#include <dlfcn.h>
#include <ucontext.h>

static void on_crash(int sig, siginfo_t *si, void *uc) {
    void *pc = (void *) ((ucontext_t *) uc)->uc_mcontext.gregs[REG_RIP];
    Dl_info d = {0};
    dladdr(pc, &d);
    printf("DEVIATION [%s]: signal %d at %s+%#lx (fault address %p)\n", prov_name, sig,
           d.dli_fname ? d.dli_fname : "?", d.dli_fbase ? (unsigned long) ((char *) pc - (char *) d.dli_fbase) : 0UL,
           si->si_addr);
    _exit(1);
}

// SIGSEGV, SIGBUS and SIGABRT end the program with that line.
static void report_crashes(void) {
    struct sigaction sa = { .sa_sigaction = on_crash, .sa_flags = SA_SIGINFO };
    sigaction(SIGSEGV, &sa, NULL); sigaction(SIGBUS, &sa, NULL); sigaction(SIGABRT, &sa, NULL);
}
#endif
