// The seccomp program's shape: whole sock_filter structs, every denied call compared, and no filter (so no code
// execution) on an architecture it has no numbers for. What it does to real calls is in the bubblewrap hostile suite.
import { DENIED_SYSCALLS_X86_64, seccompFilter } from './seccomp.js';

describe('seccompFilter', () => {
  it('is a whole number of 8-byte instructions comparing every denied call, ending in allow', () => {
    const program = seccompFilter('x64')!;
    expect(program.length % 8).toBe(0);
    const instructions = Array.from({ length: program.length / 8 }, (_, i) => ({
      code: program.readUInt16LE(i * 8),
      k: program.readUInt32LE(i * 8 + 4),
    }));
    const compared = new Set(instructions.filter((ins) => ins.code === 0x15).map((ins) => ins.k));
    for (const nr of Object.values(DENIED_SYSCALLS_X86_64)) expect(compared).toContain(nr);
    expect(compared).toContain(435); // clone3
    expect(compared).toContain(56); // clone
    expect(instructions.at(-1)).toEqual({ code: 0x06, k: 0x7fff0000 });
    expect(instructions.length).toBeLessThan(256);
  });

  it('has no filter for another architecture (code execution is then unavailable)', () => {
    expect(seccompFilter('arm64')).toBeNull();
  });
});
