/**
 * Cribl.Cloud addresses and their defaults, in one place (config, auth and workspace discovery use them). The
 * government cloud has no safe default for its token and management URLs: Cribl's own tools disagree on them
 * (docs/deployments.md, "Government cloud"), so they must be configured there.
 */

/** The commercial Cribl.Cloud domain. */
export const CLOUD_DOMAIN = 'cribl.cloud';

/**
 * OAuth token endpoint of the commercial cloud; it takes JSON bodies (everything else gets the OAuth-standard form).
 */
export const COMMERCIAL_TOKEN_URL = 'https://login.cribl.cloud/oauth/token';

/** True for a government cloud domain (e.g. cribl-gov.cloud). */
export function isGovernmentDomain(domain: string): boolean {
  return domain.includes('gov');
}

/** Token URL for a domain; undefined for a government domain (no safe default: it must be configured). */
export function defaultTokenUrl(domain: string = CLOUD_DOMAIN): string | undefined {
  if (isGovernmentDomain(domain)) return undefined;
  return domain === CLOUD_DOMAIN ? COMMERCIAL_TOKEN_URL : `https://login.${domain}/oauth/token`;
}

/** Body encoding the token endpoint takes: JSON for the commercial endpoint, the OAuth-standard form otherwise. */
export function defaultTokenBody(tokenUrl: string): 'json' | 'form' {
  return tokenUrl === COMMERCIAL_TOKEN_URL ? 'json' : 'form';
}

/**
 * Audience of client-credential tokens for a cloud domain: `https://api.<domain>` (the official Terraform provider
 * and Grafana plugin derive the government one the same way).
 */
export function defaultAudience(domain: string = CLOUD_DOMAIN): string {
  return `https://api.${domain}`;
}

/** Management-plane base URL (paths start with /v1/); undefined for a government domain, which has none by default. */
export function defaultManagementUrl(domain: string = CLOUD_DOMAIN): string | undefined {
  return isGovernmentDomain(domain) ? undefined : `https://gateway.${domain}`;
}

/** Global-context base URL of a workspace's leader: https://<workspace>-<organization>.<domain>/api/v1. */
export function cloudLeaderUrl(workspace: string, organization: string, domain: string = CLOUD_DOMAIN): string {
  return `https://${workspace}-${organization}.${domain}/api/v1`;
}
