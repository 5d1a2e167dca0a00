/** The commercial Cribl.Cloud domain. */
export const CLOUD_DOMAIN = 'cribl.cloud';

/** OAuth token endpoint of the commercial cloud. */
export const CLOUD_TOKEN_URL = 'https://login.cribl.cloud/oauth/token';

/** Management-plane base URL of the commercial cloud (paths start with /v1/). */
export const CLOUD_MANAGEMENT_URL = 'https://gateway.cribl.cloud';

/**
 * Audience of client-credential tokens for a cloud domain: `https://api.<domain>` (https://api.cribl.cloud for the
 * commercial cloud; the official Terraform provider and Grafana plugin derive the government one the same way).
 */
export function defaultAudience(domain: string = CLOUD_DOMAIN): string {
  return `https://api.${domain}`;
}

/**
 * Token URL for a cloud domain, or undefined when there is no safe default: the government cloud's
 * identity provider differs between Cribl's own tools, so it must be configured (`--cloud.token-url`).
 */
export function defaultTokenUrl(domain: string = CLOUD_DOMAIN): string | undefined {
  return domain === CLOUD_DOMAIN ? CLOUD_TOKEN_URL : undefined;
}

/** Global-context base URL of a workspace's leader: https://<workspace>-<organization>.<domain>/api/v1. */
export function cloudLeaderUrl(workspace: string, organization: string, domain: string = CLOUD_DOMAIN): string {
  return `https://${workspace}-${organization}.${domain}/api/v1`;
}
