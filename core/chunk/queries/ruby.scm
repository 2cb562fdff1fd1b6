; Ruby: the file header (require lines) and definitions.

((call method: (identifier) @_r arguments: (argument_list (string) @import)) @header
 (#match? @_r "^(require|require_relative|load)$"))

(class name: [(constant) (scope_resolution)] @name) @definition.class
(module name: [(constant) (scope_resolution)] @name) @definition.module
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
