import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
var r={kernel_chars:6e3,host_chars:4e3,entry_chars:3e3},e=3;export{r as a,e as b};
