package catalog

// onebot11 holds the actions the OneBot v11 standard defines. Keyword search
// ranks them above extensions that match a query equally well: they are the
// ones most bots call, and the ones an operator usually means by "send a
// message" or "mute a member".
var onebot11 = map[string]bool{
	"send_private_msg": true, "send_group_msg": true, "send_msg": true,
	"delete_msg": true, "get_msg": true, "get_forward_msg": true,
	"send_like": true, "set_group_kick": true, "set_group_ban": true,
	"set_group_anonymous_ban": true, "set_group_whole_ban": true,
	"set_group_admin": true, "set_group_anonymous": true, "set_group_card": true,
	"set_group_name": true, "set_group_leave": true, "set_group_special_title": true,
	"set_friend_add_request": true, "set_group_add_request": true,
	"get_login_info": true, "get_stranger_info": true, "get_friend_list": true,
	"get_group_info": true, "get_group_list": true, "get_group_member_info": true,
	"get_group_member_list": true, "get_group_honor_info": true,
	"get_cookies": true, "get_csrf_token": true, "get_credentials": true,
	"get_record": true, "get_image": true, "can_send_image": true,
	"can_send_record": true, "get_status": true, "get_version_info": true,
	"set_restart": true, "clean_cache": true,
}
