import { describe, expect, it } from 'vitest';
import {
  parseLsofListening,
  parseNetstatListening,
  parseProcNetTcp,
  parseProcStatEntry,
  parsePsList,
  processTreeOf,
  socketInodeOfLink,
} from '../../../src/platform/listening-port-parsers.js';
import { originOfListening } from '../../../src/platform/listening-ports.js';

// Each tool's output as it prints it (Linux's taken from this machine; lsof's from macOS 14, netstat's from Windows 11).
const PROC_NET_TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:9D0F 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 770831 1 00000000f67c9f22 100 0 0 10 0
   1: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 606 1 000000000c49e8ae 100 0 0 10 0
   2: 0100007F:EABA 0100007F:9A77 06 00000000:00000000 03:0000018E 00000000     0        0 0 3 000000009e7145ed
   3: 0100007F:CEAE 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 99123 1 00000000536dcb88 20 4 30 10 -1
`;
const PROC_NET_TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1435 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 81234 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000000000000:10E1 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 81235 1 0000000000000000 100 0 0 10 0
   2: 0000000000000000FFFF00000100007F:1F40 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 81236 1 0000000000000000 100 0 0 10 0
`;
const LSOF = `p4242
f23
n127.0.0.1:5173
f24
n[::1]:5173
p4243
f30
n*:24678
`;
const NETSTAT = `
Active Connections

  Proto  Local Address          Foreign Address        State           PID
  TCP    0.0.0.0:135            0.0.0.0:0              LISTENING       1100
  TCP    127.0.0.1:3000         0.0.0.0:0              LISTENING       5120
  TCP    127.0.0.1:3000         127.0.0.1:51234        ESTABLISHED     5120
  TCP    [::]:4321              [::]:0                 LISTENING       5121
  TCP    [::1]:5173             [::]:0                 LISTENING       9999
`;

describe('what each platform says about listening sockets', () => {
  it('reads /proc/net/tcp: listening rows only, little-endian addresses', () => {
    expect(parseProcNetTcp(PROC_NET_TCP)).toEqual([
      { address: '127.0.0.1', port: 0x9d0f, inode: '770831' },
      { address: '0.0.0.0', port: 2024, inode: '606' },
    ]);
  });

  it('reads /proc/net/tcp6: ::1, ::, and an IPv4-mapped address', () => {
    expect(parseProcNetTcp(PROC_NET_TCP6)).toEqual([
      { address: '::1', port: 5173, inode: '81234' },
      { address: '::', port: 4321, inode: '81235' },
      { address: '127.0.0.1', port: 8000, inode: '81236' },
    ]);
  });

  it('reads a socket inode from an fd link', () => {
    expect(socketInodeOfLink('socket:[81234]')).toBe('81234');
    expect(socketInodeOfLink('pipe:[81234]')).toBeUndefined();
    expect(socketInodeOfLink('/dev/null')).toBeUndefined();
  });

  it('reads /proc/<pid>/stat with a command name holding spaces and parentheses', () => {
    expect(parseProcStatEntry('4242 (node (dev) x) S 4200 4200 4200 0 -1')).toEqual({ pid: 4242, parentPid: 4200, processGroup: 4200 });
  });

  it('reads lsof -F pn', () => {
    expect(parseLsofListening(LSOF)).toEqual([
      { address: '127.0.0.1', port: 5173 },
      { address: '::1', port: 5173 },
      { address: '0.0.0.0', port: 24678 },
    ]);
  });

  it('reads netstat -ano: the listening rows of the given processes', () => {
    expect(parseNetstatListening(NETSTAT, new Set([5120, 5121]))).toEqual([
      { address: '127.0.0.1', port: 3000 },
      { address: '::', port: 4321 },
    ]);
  });

  it('finds a process tree by parent and by process group', () => {
    const entries = parsePsList(' 100 1 100\n 101 100 100\n 102 101 100\n 103 1 103\n 104 1 100\n 105 103 103\n');
    expect([...processTreeOf(100, entries)].sort()).toEqual([100, 101, 102, 104]);
  });
});

describe('the origin proxied to', () => {
  it.each([
    ['the lowest port, on loopback', [{ address: '0.0.0.0', port: 24678 }, { address: '0.0.0.0', port: 3000 }], 'http://127.0.0.1:3000'],
    ['a dual-stack socket through localhost', [{ address: '::', port: 4321 }], 'http://localhost:4321'],
    ['IPv6 loopback', [{ address: '::1', port: 5173 }], 'http://[::1]:5173'],
    ['not the Node inspector', [{ address: '127.0.0.1', port: 9229 }, { address: '127.0.0.1', port: 10000 }], 'http://127.0.0.1:10000'],
    ['not an ignored port (the proxy)', [{ address: '127.0.0.1', port: 4141 }], undefined],
    ['not a LAN-only address', [{ address: '192.168.1.5', port: 3000 }], undefined],
  ])('%s', (_name, sockets, origin) => {
    expect(originOfListening(sockets, { ignorePorts: [4141] })).toBe(origin);
  });
});
