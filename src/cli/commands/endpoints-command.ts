import { UserError } from '../../shared/errors.js';
import type { CliIo } from '../cli-io.js';

export async function runEndpoints(options: Record<string, unknown>, io: CliIo): Promise<void> {
  void [options, io];
  throw new UserError('not_implemented', 'This command is not built yet.');
}

export async function runPrune(options: Record<string, unknown>, io: CliIo): Promise<void> {
  void [options, io];
  throw new UserError('not_implemented', 'This command is not built yet.');
}
