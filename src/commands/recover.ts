// `patchtx recover`: open the repository without the automatic recovery, then run it explicitly
// so its report can be shown (every journal whose run is gone: this checkout's and every ref's).
import { recoverInterrupted, type RecoveryReport } from '../tx/recover.js';

export type { RecoveryReport, RecoveryWarning } from '../tx/recover.js';
import { withSession, type SessionOptions } from '../tx/session.js';

export async function recoverCommand(opts: SessionOptions): Promise<RecoveryReport | null> {
  return withSession({ ...opts, noRecover: true }, (session) => recoverInterrupted(session, { checkoutInUse: session.repo.workdir !== null }));
}
