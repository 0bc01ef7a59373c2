// npm run adopt-records: the upgrade of a cluster whose account and API-token records an older
// version wrote without a MAC (issue 38: records are sealed with a key derived from
// FW_JWT_SECRET, and a record without a right MAC is ignored, so its login fails until it is
// adopted). Run once, by an admin, with the cluster's environment (REDIS_URL or the
// sentinels, REDIS_PASSWORD, FW_CLUSTER_NAME and the new FW_JWT_SECRET):
//
//   npm run adopt-records            lists what would be sealed, changes nothing
//   npm run adopt-records -- --yes   seals those records and deletes the JWT secret an older
//                                    version kept in Redis
//
// Sealing vouches for a record: anything written into Redis by someone else before now would
// be adopted as well, so the list names every account (with its role) and token; delete what
// you do not recognise (DELETE /api/users/{name} once adopted, or HDEL) before or after.
import { loadSettings } from './settings';
import { RedisStore } from './store/redis/redis-store';
import { clusterSecret } from './cluster/cluster-security';
import { emptyDoc, serializeDoc } from './config/document';

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function main(argv: string[]): Promise<number> {
  const settings = loadSettings();
  if (!settings.redis) throw new Error('adopt-records is for a cluster: set REDIS_URL or REDIS_SENTINELS as the instances have them');
  const secret = clusterSecret(settings);
  const yes = argv.includes('--yes');
  const store = new RedisStore({ target: settings.redis, clusterName: settings.clusterName, sessionLeaseMs: 60_000, secret, minReplicas: settings.redisMinReplicas, connectWaitMs: 10_000 });
  try {
    await store.open(() => serializeDoc(emptyDoc(settings.interfaces)));
    const legacy = await store.legacySecret();
    if (legacy !== null && legacy === secret) {
      throw new Error(`FW_JWT_SECRET is the secret kept in Redis (fw:{${settings.clusterName}}:secret), which anyone who can read Redis knows: generate a new one (openssl rand -base64 32), give it to every instance and run this again with it`);
    }
    const check = await store.recordCheck();
    const unsealed = await store.unsealedRecords();
    out(`cluster "${settings.clusterName}": ${check.users} account records, ${unsealed.length} records without a MAC, ${check.forged.length} with a wrong MAC (left alone, ignored by the daemon)`);
    for (const r of unsealed) out(`  ${r.kind === 'user' ? `account ${r.name} (role ${r.role ?? 'admin'})` : `API token ${r.name} of ${r.owner ?? '?'} (role ${r.role ?? '?'})`}`);
    for (const r of check.forged) out(`  wrong MAC: ${r.kind} ${r.field}`);
    if (!yes) {
      out(unsealed.length || legacy !== null
        ? 'nothing changed: check the list (every record sealed is trusted from then on), then run again with --yes'
        : 'nothing to do');
      return 0;
    }
    const sealed = await store.adoptRecords();
    out(`sealed ${sealed.users} account and ${sealed.apiTokens} API-token records`);
    if (legacy !== null) {
      await store.dropLegacySecret();
      out(`deleted the JWT secret an older version kept in Redis (fw:{${settings.clusterName}}:secret)`);
    }
    return 0;
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code), (e: Error) => {
  process.stderr.write(`adopt-records: ${e.message}\n`);
  process.exit(1);
});
