/* `hlx run`: execute a program's entry function and report its results. */
#ifndef HLX_TOOLS_RUN_COMMAND_H_
#define HLX_TOOLS_RUN_COMMAND_H_

/* argv: FILE and options (see `hlx --help`). Returns the exit status. */
int hlx_cmd_run(int argc, char** argv);

#endif /* HLX_TOOLS_RUN_COMMAND_H_ */
