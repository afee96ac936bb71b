/** The machine a benchmark ran on, for the report. */
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem, type as osType } from 'node:os';

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
  date: string;
  /** 1-minute load average when the run started: other work on the machine shows here. */
  loadAverage: number;
}

function cpuModel(): string {
  try {
    const info = readFileSync('/proc/cpuinfo', 'utf8');
    const match = /^model name\s*:\s*(.+)$/m.exec(info);
    if (match?.[1]) return match[1].trim();
  } catch {
    // Not Linux: os.cpus() below.
  }
  return cpus()[0]?.model.trim() || 'unknown';
}

function osName(): string {
  try {
    const text = readFileSync('/etc/os-release', 'utf8');
    const pretty = /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(text)?.[1];
    if (pretty) return `${pretty} (${osType()} ${release()})`;
  } catch {
    // No os-release: the kernel name will do.
  }
  return `${osType()} ${release()}`;
}

export function describeMachine(now: Date = new Date()): MachineInfo {
  return {
    cpuModel: cpuModel(),
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: osName(),
    date: now.toISOString().replace(/\.\d+Z$/, 'Z'),
    loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}
