import { InvalidArgumentError as CommanderArgumentError } from 'commander';
import { checkDeployment, type Finding } from '../engine/doctor.js';
import { ACL_ROLES, type AclRole } from '../store/server-report.js';
import { CliError } from './errors.js';
import { duration } from './parse.js';
import type { Register } from './program.js';

/** `spool doctor`: checks a deployment and prints what to fix; exit 1 when anything is a problem. */

const MARK: Record<Finding['severity'], string> = { ok: 'ok  ', warn: 'warn', problem: 'FAIL' };

function aclUser(value: string, previous: Partial<Record<AclRole, string>> = {}): Partial<Record<AclRole, string>> {
  const match = /^([a-z]+)=(.+)$/.exec(value);
  const role = ACL_ROLES.find((r) => r === match?.[1]);
  if (!match || !role) throw new CommanderArgumentError(`must be <role>=<ACL user> with role one of ${ACL_ROLES.join(', ')}, e.g. worker=jobs-worker`);
  return { ...previous, [role]: match[2]! };
}

export function findingsText(findings: readonly Finding[]): string {
  const width = Math.max(...findings.map((f) => f.check.length));
  const lines = findings.map((f) => `${MARK[f.severity]}  ${f.check.padEnd(width)}  ${f.message}${f.fix && f.severity !== 'ok' ? `\n${' '.repeat(width + 8)}fix: ${f.fix}` : ''}`);
  const problems = findings.filter((f) => f.severity === 'problem').length;
  const warnings = findings.filter((f) => f.severity === 'warn').length;
  return `${lines.join('\n')}\n\n${problems} problem(s), ${warnings} warning(s)`;
}

export const registerDoctor: Register = (program, action) => {
  program
    .command('doctor')
    .description('check the deployment: Redis version, eviction policy, memory, clock skew, cluster layout, ACL rights per role, stalled work, event streams near their maxLen')
    .option('--acl-user <role=user>', `an ACL user to check for a role (${ACL_ROLES.join(', ')}); repeat for each`, aclUser)
    .option('--max-skew <duration>', 'clock skew between Redis and this host that counts as a problem', duration, 1000)
    .addHelpText('after', '\nExit status: 0 no problem (warnings allowed), 1 a problem found or Redis unreachable, 2 wrong usage.\n\nExample:\n  spool doctor --acl-user worker=jobs-worker --acl-user producer=api')
    .action(
      action(async (ctx, cmd) => {
        const o = cmd.opts<{ aclUser?: Partial<Record<AclRole, string>>; maxSkew: number }>();
        const findings = await checkDeployment(ctx.store, { aclUsers: o.aclUser ?? {}, maxSkewMs: o.maxSkew });
        ctx.result(findings, findingsText(findings));
        const problems = findings.filter((f) => f.severity === 'problem').length;
        if (problems > 0) throw new CliError(`doctor found ${problems} problem(s): see the FAIL lines above`);
      }),
    );
};
