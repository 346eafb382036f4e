// `npm run cluster -- [instances]`: N instances of the service (3 by default, CLUSTER_INSTANCES) on the
// PostgreSQL database of DATABASE_URL, behind nginx on 127.0.0.1:PORT (8080 by default), on this
// machine (scripts/lib/cluster.ts). An instance that stops by itself is started again a second
// later; Ctrl-C stops them all. The environment reaches every instance (ADMIN_USER, METRICS_TOKEN,
// REDIS_URL, ...).
import { execFileSync } from 'node:child_process';
import { type Cluster, nginxBinary, NGINX_HINT, startCluster } from './lib/cluster.js';

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

async function main() {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    fail(
      "DATABASE_URL must name a PostgreSQL database: the instances share it (the embedded database is one process's).",
    );
  }
  if (!nginxBinary()) fail(NGINX_HINT);
  const count = Number(process.argv.at(2) ?? process.env.CLUSTER_INSTANCES ?? 3);
  if (!Number.isInteger(count) || count < 1 || count > 32) fail('The number of instances must be from 1 to 32.');
  const port = Number(process.env.PORT ?? 8080);
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  let stopping = false;
  const cluster: Cluster = await startCluster({ instances: count, port, databaseUrl });
  console.log(`\n${count} instance(s) behind nginx at ${cluster.url}`);
  for (const instance of cluster.instances) console.log(`  instance ${instance.url} (pid ${instance.process?.pid})`);
  console.log('Ctrl-C stops them all.\n');

  for (const instance of cluster.instances) {
    const watch = () => {
      instance.process?.once('exit', (code, signal) => {
        if (stopping) return;
        console.error(`instance ${instance.url} stopped (${signal ?? `exit ${code}`}); starting it again`);
        setTimeout(() => {
          instance.start().then(watch, (err: unknown) => {
            console.error(`instance ${instance.url} could not start again: ${(err as Error).message}`);
          });
        }, 1000);
      });
    };
    watch();
  }
  cluster.nginx.once('exit', (code) => {
    if (stopping) return;
    console.error(`nginx stopped (exit ${code}); stopping the instances`);
    stopping = true;
    void cluster.stop().finally(() => process.exit(1));
  });
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void cluster.stop().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  fail(`could not start the cluster: ${(err as Error).message}`);
});
