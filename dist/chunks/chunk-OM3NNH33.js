import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
function o(r){try{return process.kill(r,0),!0}catch(e){return e.code==="EPERM"}}export{o as a};
