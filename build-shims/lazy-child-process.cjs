// commander requires child_process when it is loaded (for executable subcommands, which git-kb does not use);
// with it come Node's streams and sockets, about 4 ms of every command. The CLI bundle gives commander this
// stand-in, which loads the real module the first time commander touches it.
let real;
module.exports = new Proxy({}, {
  get(_, key) {
    real ??= require('node:child_process');
    return real[key];
  },
});
