import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{e as a}from"./chunk-LYPP2I7K.js";import{c as n}from"./chunk-4OQBCCN5.js";import{g as i,i as r}from"./chunk-UJNA6TNG.js";import{b as e}from"./chunk-P56FQ7LC.js";import y from"node:crypto";import s from"node:fs";async function x(t,o={}){if(i(t))return r(t),!1;if(s.existsSync(t)&&s.readdirSync(t).length>0)throw new e("NO_DATA_REPO",`${t} exists and is not a git repository; choose another --data directory or run "git -C ${t} init"`,{dir:t});return await n(t),await g(t,"git-kb: create data repo",o),!0}async function g(t,o,m={}){let p=`${JSON.stringify({schema_version:2,created_by:"git-kb"},null,2)}
`,c=`${o}

repo ${y.randomBytes(6).toString("hex")}`;await a(t,f=>f.commit([{path:"kb.json",content:p}],c,{record:!1}),m)}export{x as a,g as b};
