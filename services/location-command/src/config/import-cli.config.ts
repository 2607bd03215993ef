/** What lx-import takes from its environment; options given on the command line win over it. */
export interface ImportCliEnvironment {
  /** LX_COMMAND_URL: location-command's base URL. */
  commandUrl: string;
  /** LX_TOKEN_URL: the auth service's token endpoint. */
  tokenUrl: string;
  /** LX_ACCESS_TOKEN: a token with locations:write, used as is. */
  accessToken?: string;
  /** LX_CLIENT_ID / LX_CLIENT_SECRET: for the client-credentials grant; the secret only ever comes from here. */
  clientId?: string;
  clientSecret?: string;
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : value;

/** The import tool's environment, with the local stack's addresses as defaults. */
export function loadImportCliEnvironment(env: NodeJS.ProcessEnv = process.env): ImportCliEnvironment {
  const accessToken = nonEmpty(env['LX_ACCESS_TOKEN']);
  const clientId = nonEmpty(env['LX_CLIENT_ID']);
  const clientSecret = nonEmpty(env['LX_CLIENT_SECRET']);
  return {
    commandUrl: nonEmpty(env['LX_COMMAND_URL']) ?? 'http://127.0.0.1:3002',
    tokenUrl: nonEmpty(env['LX_TOKEN_URL']) ?? 'http://127.0.0.1:3001/oauth/token',
    ...(accessToken === undefined ? {} : { accessToken }),
    ...(clientId === undefined ? {} : { clientId }),
    ...(clientSecret === undefined ? {} : { clientSecret }),
  };
}
