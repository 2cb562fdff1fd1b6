<?php
/** The blog's database settings. */
define( 'DB_NAME', 'blog' );
define( 'DB_USER', 'blog' );
define( 'DB_PASSWORD', 'RqWpDbPass6n3v' );
define( 'DB_HOST', 'blog-db' );

/** Authentication unique keys and salts. */
define( 'AUTH_KEY', 'RqWpAuthKey8x2m!q' );

$table_prefix = 'wp_';
