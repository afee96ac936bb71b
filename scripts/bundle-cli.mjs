// The bin's bundle (rolldown.config.mjs), built through rolldown's API: the
// same build as `rolldown -c rolldown.config.mjs`, without the CLI's listing of
// every chunk and map it wrote (~80 lines on every `npm run build`, so on a
// newcomer's first `npm run demo`). Warnings and errors still print.
import { build } from 'rolldown';
import config from '../rolldown.config.mjs';

await build({ ...config, logLevel: 'warn' });
