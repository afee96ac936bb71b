/** One line of `median-dev doctor`: what was checked, how it went, and what to do about it. */
export interface DoctorCheck {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  message: string;
  fix?: string;
}

/** Where a check function puts what it found. */
export type AddCheck = (check: DoctorCheck) => void;
