import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { findExecutable } from './find-executable.js';
import {
  parseLsofListening,
  parseNetstatListening,
  parseProcNetTcp,
  parseProcStatEntry,
  parsePsList,
  parseWindowsProcessList,
  processTreeOf,
  socketInodeOfLink,
  type ListeningSocket,
  type ProcessEntry,
} from './listening-port-parsers.js';

export type { ListeningSocket } from './listening-port-parsers.js';

/** The operating-system calls the port lookup makes (tests describe another platform's output with them). */
export interface PortLookupSystem {
  platform: NodeJS.Platform;
  readTextFile(path: string): string;
  listDir(path: string): string[];
  readLink(path: string): string;
  /** Runs a program without a shell; its standard output, or undefined when it failed or is missing. */
  runCommand(file: string, args: readonly string[], timeoutMs: number): Promise<string | undefined>;
  /** Where programs are looked up (`lsof`, `ps`, `netstat`). */
  env: { PATH?: string | undefined; Path?: string | undefined; PATHEXT?: string | undefined };
}

/** How long one tool run may take before the lookup gives up on it (it is tried again later). */
const COMMAND_TIMEOUT_MS = 3_000;

export function realPortLookupSystem(env: PortLookupSystem['env']): PortLookupSystem {
  return {
    platform: process.platform,
    readTextFile: (path) => readFileSync(path, 'utf8'),
    listDir: (path) => readdirSync(path),
    readLink: (path) => readlinkSync(path),
    runCommand: (file, args, timeoutMs) =>
      new Promise((resolve) => {
        execFile(file, [...args], { windowsHide: true, timeout: timeoutMs, maxBuffer: 8 * 1024 * 1024 }, (error, stdout) => resolve(error ? undefined : stdout));
      }),
    env,
  };
}

/**
 * The TCP ports the process `rootPid` and its descendants listen on, from
 * the OS: Linux reads `/proc` (the sockets of `/proc/<pid>/fd` matched with
 * `/proc/<pid>/net/tcp{,6}`), macOS runs `lsof`, Windows `netstat -ano`.
 * Sorted by port; empty when nothing listens or the OS does not tell (never throws).
 */
export async function findListeningPorts(rootPid: number, system: PortLookupSystem): Promise<ListeningSocket[]> {
  try {
    const sockets =
      system.platform === 'linux' ? linuxListening(rootPid, system) : system.platform === 'win32' ? await windowsListening(rootPid, system) : await lsofListening(rootPid, system);
    return uniqueSorted(sockets);
  } catch {
    return []; // /proc or a tool said nothing usable this time: the caller looks again later
  }
}

function uniqueSorted(sockets: ListeningSocket[]): ListeningSocket[] {
  const seen = new Map<string, ListeningSocket>();
  for (const socket of sockets) seen.set(`${socket.address}|${socket.port}`, socket);
  return [...seen.values()].sort((a, b) => a.port - b.port || a.address.localeCompare(b.address));
}

function linuxProcesses(system: PortLookupSystem): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  for (const name of system.listDir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const entry = parseProcStatEntry(system.readTextFile(`/proc/${name}/stat`));
      if (entry) entries.push(entry);
    } catch {
      // It exited while /proc was listed.
    }
  }
  return entries;
}

function linuxListening(rootPid: number, system: PortLookupSystem): ListeningSocket[] {
  const tree = processTreeOf(rootPid, linuxProcesses(system));
  const inodes = new Set<string>();
  for (const pid of tree) {
    let fds: string[];
    try {
      fds = system.listDir(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    for (const fd of fds) {
      try {
        const inode = socketInodeOfLink(system.readLink(`/proc/${pid}/fd/${fd}`));
        if (inode) inodes.add(inode);
      } catch {
        // The descriptor closed while we read the folder.
      }
    }
  }
  if (inodes.size === 0) return [];
  const sockets: ListeningSocket[] = [];
  // The tables of the root's network namespace (a dev server in the same one as its children).
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = system.readTextFile(`/proc/${rootPid}/net/${table}`);
    } catch {
      continue; // no IPv6 on this machine, or the root exited
    }
    for (const socket of parseProcNetTcp(text)) if (inodes.has(socket.inode)) sockets.push({ address: socket.address, port: socket.port });
  }
  return sockets;
}

async function lsofListening(rootPid: number, system: PortLookupSystem): Promise<ListeningSocket[]> {
  const lsof = findExecutable('lsof', system.env, system.platform);
  if (!lsof) return [];
  const ps = findExecutable('ps', system.env, system.platform);
  const listing = ps ? await system.runCommand(ps, ['-A', '-o', 'pid=,ppid=,pgid='], COMMAND_TIMEOUT_MS) : undefined;
  const tree = listing ? processTreeOf(rootPid, parsePsList(listing)) : new Set([rootPid]);
  // lsof exits 1 when none of the processes listens: that is "nothing", not a failure.
  const output = await system.runCommand(lsof, ['-nP', '-iTCP', '-sTCP:LISTEN', '-a', '-p', [...tree].join(','), '-F', 'pn'], COMMAND_TIMEOUT_MS);
  return output ? parseLsofListening(output) : [];
}

async function windowsListening(rootPid: number, system: PortLookupSystem): Promise<ListeningSocket[]> {
  const powershell = findExecutable('powershell', system.env, system.platform);
  const listing = powershell
    ? await system.runCommand(powershell, ['-NoProfile', '-NonInteractive', '-Command', 'Get-CimInstance Win32_Process | ForEach-Object { "$($_.ProcessId) $($_.ParentProcessId)" }'], COMMAND_TIMEOUT_MS)
    : undefined;
  const tree = listing ? processTreeOf(rootPid, parseWindowsProcessList(listing)) : new Set([rootPid]);
  const netstat = findExecutable('netstat', system.env, system.platform);
  if (!netstat) return [];
  const output = await system.runCommand(netstat, ['-ano', '-p', 'TCP'], COMMAND_TIMEOUT_MS);
  const output6 = await system.runCommand(netstat, ['-ano', '-p', 'TCPv6'], COMMAND_TIMEOUT_MS);
  return [...parseNetstatListening(output ?? '', tree), ...parseNetstatListening(output6 ?? '', tree)];
}

/**
 * The origin to proxy to for what a dev server listens on: its lowest port
 * (a dev server's HMR or inspector port comes after its own), reached on
 * loopback; undefined when it listens on nothing.
 */
export function originOfListening(sockets: readonly ListeningSocket[], options: { ignorePorts?: readonly number[] } = {}): string | undefined {
  const ignored = new Set([...(options.ignorePorts ?? []), NODE_INSPECTOR_PORT]);
  const candidates = sockets.filter((socket) => !ignored.has(socket.port) && isReachableFromLoopback(socket.address)).sort((a, b) => a.port - b.port);
  const first = candidates[0];
  if (!first) return undefined;
  const host = first.address === '::1' ? '[::1]' : first.address.startsWith('127.') ? first.address : first.address === '::' ? 'localhost' : '127.0.0.1';
  return `http://${host}:${first.port}`;
}

/** `node --inspect`'s default port: a debugger, never the app. */
const NODE_INSPECTOR_PORT = 9229;

function isReachableFromLoopback(address: string): boolean {
  return address === '0.0.0.0' || address === '::' || address === '::1' || address.startsWith('127.');
}
