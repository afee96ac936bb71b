/**
 * Where the recording proxy's time goes, run when a proxy target is missed
 * (or with --profile): the per-request steps of recording, each timed alone
 * in a loop, then the bare and the recording proxy under `node --cpu-prof`,
 * summarised side by side. Profiling slows a process down, so those runs'
 * throughput is not reported.
 */
import { join } from 'node:path';
import { newestProfileIn, summarizeCpuProfile, type ProfileSummary } from '../cpu-profile-summary.js';
import { runLoad } from '../load-generator.js';
import { forkServer, type ServerHandle } from '../server-handle.js';
import type { ServerSpec } from '../server-process.js';
import { BENCH_MEDIAN_KEY, benchSecret, newRunTag, prepareSignedCalls } from '../signed-calls.js';
import { measureHotPathCosts, type StepCost } from './hot-path-costs.js';

export interface ProxyDiagnosis {
  steps: StepCost[];
  /** Requests each profiled proxy handled (warm-up included). */
  profiledRequests: number;
  bare: ProfileSummary;
  recording: ProfileSummary;
  profileDir: string;
}

export interface ProxyDiagnosisOptions {
  target: ServerHandle;
  dataDir: string;
  profileDir: string;
  /** Requests of each profiled run. */
  profiledRequests: number;
  warmup: number;
  concurrency: number;
}

async function profileOne(spec: ServerSpec, dir: string, options: ProxyDiagnosisOptions): Promise<ProfileSummary> {
  const server = await forkServer(spec, { execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
  try {
    const calls = prepareSignedCalls(benchSecret(), newRunTag(), options.warmup + options.profiledRequests);
    const result = await runLoad({
      origin: server.url,
      requests: options.profiledRequests,
      warmup: options.warmup,
      concurrency: options.concurrency,
      requestAt: (i) => calls[i]!,
      deadlineMs: 120_000,
      recordLatencies: false,
    });
    if (result.failed > 0) throw new Error(`Profiling ${spec.role}: ${result.failed} requests failed (${result.firstError}).`);
    await server.settle();
  } finally {
    // The profile is written when the process exits.
    await server.stop();
  }
  const file = await newestProfileIn(dir);
  if (!file) throw new Error(`node --cpu-prof wrote no profile in ${dir}.`);
  return summarizeCpuProfile(file, 15);
}

export async function diagnoseProxies(options: ProxyDiagnosisOptions): Promise<ProxyDiagnosis> {
  const steps = measureHotPathCosts();
  const bare = await profileOne({ role: 'bare-proxy', target: options.target.url }, join(options.profileDir, 'bare'), options);
  const recording = await profileOne(
    { role: 'recording-proxy', target: options.target.url, dataDir: options.dataDir, medianKey: BENCH_MEDIAN_KEY },
    join(options.profileDir, 'recording'),
    options,
  );
  return { steps, profiledRequests: options.warmup + options.profiledRequests, bare, recording, profileDir: options.profileDir };
}
