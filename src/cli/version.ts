/** median-dev's version, as `--version`, the snapshot and HAR exports say it. */
export const VERSION = '0.1.0';
