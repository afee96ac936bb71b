/**
 * What each platform's own tools say about listening TCP sockets and
 * processes, parsed: Linux's `/proc/net/tcp{,6}` and `/proc/<pid>/stat`,
 * macOS's `lsof -F pn` and `ps -A -o pid=,ppid=,pgid=`, Windows's
 * `netstat -ano` and the `ProcessId ParentProcessId` lines of
 * `Get-CimInstance Win32_Process`. Pure functions, unit-tested with each
 * tool's real output.
 */

/** A TCP socket in LISTEN state: the address it is bound to and its port. */
export interface ListeningSocket {
  /** `127.0.0.1`, `0.0.0.0`, `::1`, `::`, … (no brackets). */
  address: string;
  port: number;
}

/** A process and its parent (and group, where the platform has them). */
export interface ProcessEntry {
  pid: number;
  parentPid: number;
  processGroup?: number;
}

/** /proc/net/tcp's state column for LISTEN. */
const TCP_LISTEN = '0A';

/**
 * `/proc/<pid>/net/tcp` or `tcp6`: the listening sockets and their inodes
 * (the address is hex, in the kernel's byte order: each 32-bit word little-endian).
 */
export function parseProcNetTcp(text: string): Array<ListeningSocket & { inode: string }> {
  const sockets: Array<ListeningSocket & { inode: string }> = [];
  for (const row of text.split('\n').slice(1)) {
    const fields = row.trim().split(/\s+/);
    if (fields.length < 10 || fields[3] !== TCP_LISTEN) continue;
    const [hexAddress, hexPort] = (fields[1] ?? '').split(':');
    const inode = fields[9] ?? '';
    const port = Number.parseInt(hexPort ?? '', 16);
    if (!hexAddress || !Number.isInteger(port) || inode === '' || inode === '0') continue;
    const address = hexAddress.length === 8 ? ipv4FromProcHex(hexAddress) : hexAddress.length === 32 ? ipv6FromProcHex(hexAddress) : undefined;
    if (address !== undefined) sockets.push({ address, port, inode });
  }
  return sockets;
}

function ipv4FromProcHex(hex: string): string {
  const bytes = [6, 4, 2, 0].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
  return bytes.join('.');
}

function ipv6FromProcHex(hex: string): string {
  // Four 32-bit words, each little-endian.
  const bytes: number[] = [];
  for (let word = 0; word < 4; word += 1) {
    const chunk = hex.slice(word * 8, word * 8 + 8);
    for (const at of [6, 4, 2, 0]) bytes.push(Number.parseInt(chunk.slice(at, at + 2), 16));
  }
  const isV4Mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (isV4Mapped) return bytes.slice(12).join('.');
  const groups: string[] = [];
  for (let at = 0; at < 16; at += 2) groups.push((((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0)).toString(16));
  return compressIpv6(groups);
}

/** `0:0:0:0:0:0:0:1` → `::1`, as inet_ntop writes it (the longest run of zero groups). */
function compressIpv6(groups: string[]): string {
  let bestStart = -1;
  let bestLength = 0;
  for (let at = 0; at < groups.length; ) {
    if (groups[at] !== '0') {
      at += 1;
      continue;
    }
    let end = at;
    while (end < groups.length && groups[end] === '0') end += 1;
    if (end - at > bestLength) {
      bestStart = at;
      bestLength = end - at;
    }
    at = end;
  }
  if (bestLength < 2) return groups.join(':');
  return `${groups.slice(0, bestStart).join(':')}::${groups.slice(bestStart + bestLength).join(':')}`;
}

/** The socket inode a `/proc/<pid>/fd/<n>` link names (`socket:[12345]`), or undefined. */
export function socketInodeOfLink(link: string): string | undefined {
  return /^socket:\[(\d+)\]$/.exec(link)?.[1];
}

/** `/proc/<pid>/stat`: "pid (comm) state ppid pgrp …" (comm may hold spaces and parentheses). */
export function parseProcStatEntry(text: string): ProcessEntry | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const [, ppid, group] = text.slice(close + 1).trim().split(/\s+/);
  const parentPid = Number(ppid);
  const processGroup = Number(group);
  if (!Number.isInteger(pid) || !Number.isInteger(parentPid) || !Number.isInteger(processGroup)) return undefined;
  return { pid, parentPid, processGroup };
}

/** `ps -A -o pid=,ppid=,pgid=` (macOS, BSD): three numbers a line. */
export function parsePsList(text: string): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  for (const row of text.split('\n')) {
    const [pid, parentPid, processGroup] = row.trim().split(/\s+/).map(Number);
    if (Number.isInteger(pid) && Number.isInteger(parentPid)) entries.push({ pid: pid!, parentPid: parentPid!, ...(Number.isInteger(processGroup) ? { processGroup: processGroup! } : {}) });
  }
  return entries;
}

/** `<ProcessId> <ParentProcessId>` a line (Windows, from PowerShell's Win32_Process). */
export function parseWindowsProcessList(text: string): ProcessEntry[] {
  return parsePsList(text).map(({ pid, parentPid }) => ({ pid, parentPid }));
}

/**
 * `lsof -nP -iTCP -sTCP:LISTEN -a -p <pids> -F pn` (macOS): `p<pid>` then an
 * `n<address>:<port>` line per socket (`n*:3000`, `n127.0.0.1:5173`, `n[::1]:4321`).
 */
export function parseLsofListening(text: string): ListeningSocket[] {
  const sockets: ListeningSocket[] = [];
  for (const row of text.split('\n')) {
    if (!row.startsWith('n')) continue;
    const name = row.slice(1).trim();
    const colon = name.lastIndexOf(':');
    if (colon < 0) continue;
    const port = Number(name.slice(colon + 1));
    let address = name.slice(0, colon);
    if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
    if (address === '*') address = '0.0.0.0';
    if (Number.isInteger(port) && port > 0) sockets.push({ address, port });
  }
  return sockets;
}

/**
 * `netstat -ano -p TCP` and `-p TCPv6` (Windows): `TCP  0.0.0.0:3000  0.0.0.0:0  LISTENING  1234`;
 * only the rows of the given processes.
 */
export function parseNetstatListening(text: string, pids: ReadonlySet<number>): ListeningSocket[] {
  const sockets: ListeningSocket[] = [];
  for (const row of text.split('\n')) {
    const fields = row.trim().split(/\s+/);
    if (fields.length < 5 || fields[0]?.toUpperCase() !== 'TCP' || fields[3]?.toUpperCase() !== 'LISTENING') continue;
    if (!pids.has(Number(fields[4]))) continue;
    const local = fields[1] ?? '';
    const colon = local.lastIndexOf(':');
    const port = Number(local.slice(colon + 1));
    let address = local.slice(0, colon);
    if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1).replace(/%\d+$/, '');
    if (colon > 0 && Number.isInteger(port) && port > 0) sockets.push({ address, port });
  }
  return sockets;
}

/** `root` and every process below it (by parent), plus its process group where the platform has them. */
export function processTreeOf(root: number, entries: readonly ProcessEntry[]): Set<number> {
  const tree = new Set<number>([root]);
  for (const entry of entries) if (entry.processGroup === root) tree.add(entry.pid);
  let grew = true;
  while (grew) {
    grew = false;
    for (const entry of entries) {
      if (!tree.has(entry.pid) && tree.has(entry.parentPid)) {
        tree.add(entry.pid);
        grew = true;
      }
    }
  }
  return tree;
}
