// Reads the parts of a Dockerfile the deploy checks need, per stage: what scripts/deploy-check.mjs
// runs outside Docker and what the deploy-files test holds compose.yaml to.

/**
 * The stages of a Dockerfile in order: `name` (from `AS`), `env` (its ENV settings), `workdir`,
 * `user`, `expose`, `run` and `copy` (their arguments), and `cmd` and `healthcheck` (exec form,
 * as arrays). Line continuations are joined; comments and parser directives are skipped.
 */
export function dockerfileStages(text) {
  const stages = [];
  let stage;
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  for (const line of lines) {
    const [, instruction = '', rest = ''] = /^(\w+)\s*(.*)$/.exec(line) ?? [];
    const keyword = instruction.toUpperCase();
    if (keyword === 'FROM') {
      stage = {
        name: /\bAS\s+(\S+)/i.exec(rest)?.[1],
        env: {},
        workdir: undefined,
        user: undefined,
        expose: [],
        run: [],
        copy: [],
        cmd: undefined,
        healthcheck: undefined,
      };
      stages.push(stage);
    } else if (stage === undefined) {
    } else if (keyword === 'ENV') {
      for (const [, name, value] of rest.matchAll(/(\w+)=("[^"]*"|\S*)/g)) {
        stage.env[name] = value.replace(/^"(.*)"$/, '$1');
      }
    } else if (keyword === 'WORKDIR') stage.workdir = rest;
    else if (keyword === 'USER') stage.user = rest;
    else if (keyword === 'EXPOSE')
      stage.expose.push(...rest.split(/\s+/).map((p) => p.split('/')[0]));
    else if (keyword === 'RUN') stage.run.push(rest);
    else if (keyword === 'COPY') stage.copy.push(rest);
    else if (keyword === 'CMD') stage.cmd = JSON.parse(rest);
    else if (keyword === 'HEALTHCHECK')
      stage.healthcheck = JSON.parse(rest.slice(rest.indexOf('CMD') + 3));
  }
  return stages;
}
