/**
 * Passwords on a command line: `curl -u user:password` (`--user`), and the short `-p` flag of the clients that
 * take a password with it (`mysql -pPASSWORD`, `docker login -p PASSWORD`, `sshpass -p`). Long `--password VALUE`
 * flags are found by their context (context.ts).
 */
import { passwordLike } from '../values.js';
import { fill, type TokenRule } from './rule.js';

const strong = (s: string): boolean => passwordLike(s, true);

export const commandLineRules: TokenRule[] = [
  {
    kind: 'command-line password',
    re: /(?<![A-Za-z0-9_-])curl[^\n]{0,200}?[ \t](?:-u|--user)(?:[ \t]{1,4}|=)["']?[^\s:"'$]{1,128}:([^\s"']{1,256}?)["']?(?=[\s]|$)/dg,
    value: 1,
    keywords: ['curl'],
    check: strong,
    samples: [fill(14)],
    context: (s) => `curl -sS -u ada:${s} https://ci.example.com/api/json`,
    nearMisses: ['curl -u user:pass https://example.com', 'curl -u "$USER:$TOKEN" https://example.com', 'curl -u ada: https://example.com'],
  },
  {
    // `mysql -pPASSWORD`: the password is glued to `-p` (a spaced `-p notes` asks for one and names the database).
    kind: 'command-line password',
    re: /(?<![A-Za-z0-9_-])(?:mysql|mysqldump|mysqladmin|mariadb)[^\n]{0,200}?[ \t]-p["']?([^\s"'$<{-][^\s"']{3,255})/dg,
    value: 1,
    keywords: ['mysql', 'mariadb'],
    check: strong,
    samples: [fill(12)],
    context: (s) => `mysql -h db.internal -u root -p${s} notes < dump.sql`,
    nearMisses: ['mysql -u root -p notes', 'mysql -u root -p$MYSQL_PWD notes'],
  },
  {
    // `docker login -p PASSWORD` (podman, nerdctl, buildah, helm registry), `helm repo add ... -p`, `sshpass -p`.
    kind: 'command-line password',
    re: /(?<![A-Za-z0-9_-])(?:(?:docker|podman|nerdctl|buildah|helm[ \t]registry)[ \t]login|helm[ \t]repo[ \t]add|sshpass)[^\n]{0,200}?[ \t]-p(?:[ \t]{1,4}|=)?["']?([^\s"'$<{-][^\s"']{3,255})/dg,
    value: 1,
    keywords: ['login', 'helm', 'sshpass'],
    check: strong,
    samples: [fill(12)],
    context: (s) => `docker login -u ada -p ${s} registry.example.com`,
    nearMisses: ['docker run -p 8080:80 nginx', 'docker login -u ada -p $DOCKER_PASSWORD', 'sshpass -p "$PASS" ssh host'],
  },
];
