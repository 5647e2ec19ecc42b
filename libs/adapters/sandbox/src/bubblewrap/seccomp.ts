// The seccomp filter of every sandbox run (bubblewrap's `--seccomp FD`): a classic BPF program that denies, with
// EPERM, the system calls container runtimes deny by default (namespaces, mounts, kernel modules, keyrings, bpf,
// ptrace and cross-process memory, reboot and kexec, swap, clocks, io_uring, handles by inode …), `clone` with any
// namespace flag, and every call of another ABI (i386, x32); `clone3` answers ENOSYS so the C library falls back to
// `clone`, whose flags the filter can read. x86_64 only: on another architecture `seccompFilter` returns null and the
// adapter reports code execution unavailable (deny by default).
import { arch } from 'node:os';

const AUDIT_ARCH_X86_64 = 0xc000003e;
const X32_SYSCALL_BIT = 0x40000000;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
// CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET
const CLONE_NAMESPACES =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

const CLONE = 56;
const CLONE3 = 435;

/** x86_64 numbers of the denied calls (from asm/unistd_64.h). */
export const DENIED_SYSCALLS_X86_64: Readonly<Record<string, number>> = {
  unshare: 272,
  setns: 308,
  mount: 165,
  umount2: 166,
  pivot_root: 155,
  chroot: 161,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  move_mount: 429,
  open_tree: 428,
  mount_setattr: 442,
  keyctl: 250,
  add_key: 248,
  request_key: 249,
  bpf: 321,
  perf_event_open: 298,
  ptrace: 101,
  process_vm_readv: 310,
  process_vm_writev: 311,
  kcmp: 312,
  kexec_load: 246,
  kexec_file_load: 320,
  init_module: 175,
  finit_module: 313,
  delete_module: 176,
  create_module: 174,
  get_kernel_syms: 177,
  query_module: 178,
  uselib: 134,
  reboot: 169,
  swapon: 167,
  swapoff: 168,
  acct: 163,
  userfaultfd: 323,
  open_by_handle_at: 304,
  name_to_handle_at: 303,
  iopl: 172,
  ioperm: 173,
  quotactl: 179,
  quotactl_fd: 443,
  syslog: 103,
  lookup_dcookie: 212,
  settimeofday: 164,
  clock_settime: 227,
  adjtimex: 159,
  clock_adjtime: 305,
  sethostname: 170,
  setdomainname: 171,
  vhangup: 153,
  nfsservctl: 180,
  _sysctl: 156,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  fanotify_init: 300,
};

// Classic BPF opcodes.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
// struct seccomp_data: nr at 0, arch at 4, args[0] (low 32 bits, little endian) at 16.
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** The compiled program (an array of struct sock_filter), or null when this architecture has no filter here. */
export function seccompFilter(machine: string = arch()): Buffer | null {
  if (machine !== 'x64') return null;
  const denied = Object.values(DENIED_SYSCALLS_X86_64);
  // Layout: the checks, then the four returns (allow, EPERM, ENOSYS) and the clone flags check.
  const checks: Instruction[] = [];
  const returns = { allow: 0, eperm: 1, enosys: 2, clone: 3 };
  const jumpTo = (target: keyof typeof returns, from: number, total: number): number =>
    total - from - 1 + returns[target];
  const headLength = 4 + denied.length + 2;
  const at = () => checks.length;
  checks.push({ code: LD_W_ABS, jt: 0, jf: 0, k: ARCH });
  checks.push({ code: JEQ_K, jt: 0, jf: jumpTo('eperm', 1, headLength), k: AUDIT_ARCH_X86_64 });
  checks.push({ code: LD_W_ABS, jt: 0, jf: 0, k: NR });
  checks.push({ code: JGE_K, jt: jumpTo('eperm', 3, headLength), jf: 0, k: X32_SYSCALL_BIT });
  for (const nr of denied) checks.push({ code: JEQ_K, jt: jumpTo('eperm', at(), headLength), jf: 0, k: nr });
  checks.push({ code: JEQ_K, jt: jumpTo('enosys', at(), headLength), jf: 0, k: CLONE3 });
  checks.push({
    code: JEQ_K,
    jt: jumpTo('clone', at(), headLength),
    jf: jumpTo('allow', at(), headLength),
    k: CLONE,
  });
  const program: Instruction[] = [
    ...checks,
    { code: RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ALLOW },
    { code: RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ERRNO | EPERM },
    { code: RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ERRNO | ENOSYS },
    { code: LD_W_ABS, jt: 0, jf: 0, k: ARG0_LOW },
    { code: JSET_K, jt: 0, jf: 1, k: CLONE_NAMESPACES },
    { code: RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ERRNO | EPERM },
    { code: RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ALLOW },
  ];
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((instruction, i) => {
    if (instruction.jt > 255 || instruction.jf > 255) throw new Error('seccomp jump out of range');
    bytes.writeUInt16LE(instruction.code, i * 8);
    bytes.writeUInt8(instruction.jt, i * 8 + 2);
    bytes.writeUInt8(instruction.jf, i * 8 + 3);
    bytes.writeUInt32LE(instruction.k >>> 0, i * 8 + 4);
  });
  return bytes;
}
