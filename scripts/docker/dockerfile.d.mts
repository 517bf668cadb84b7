/** One stage of a Dockerfile, as {@link dockerfileStages} reads it. */
export interface DockerfileStage {
  name: string | undefined;
  env: Record<string, string>;
  workdir: string | undefined;
  user: string | undefined;
  expose: string[];
  run: string[];
  copy: string[];
  cmd: string[] | undefined;
  healthcheck: string[] | undefined;
}

export function dockerfileStages(text: string): DockerfileStage[];
