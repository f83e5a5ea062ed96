import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import"./chunk-ZHHVG47C.js";async function e(t){try{await(await import("../hooks/prompt.js")).refreshPromptIndex(t)}catch{}}async function i(t){return(await import("../hooks/prompt.js")).rebuildPromptIndex(t)}export{i as rebuildPromptIndex,e as refreshPromptIndex};
