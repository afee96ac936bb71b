import { UserError } from '../../shared/errors.js';
import type { CliIo } from '../cli-io.js';

// eslint-disable-next-line @typescript-eslint/no-unused-vars
export async function runDemo(options: Record<string, unknown>, io: CliIo): Promise<void> {
  void [io];
  throw new UserError('not_implemented', 'This command is not built yet.');
}
